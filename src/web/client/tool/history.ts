/**
 * Earlier unsubscriptions, kept in this browser only (localStorage) so the next scan can
 * tell whether a list really stopped. Only list keys and times are stored: never the
 * person's address, never a password.
 */
export const HISTORY_KEY = 'optout.unsubscribes.v1';
const MAX_ENTRIES = 2000; // the protocol's limit for previous_unsubscribes

export interface HistoryEntry {
  list_key: string;
  at: string;
}

export function loadHistory(): HistoryEntry[] {
  try {
    const raw = JSON.parse(localStorage.getItem(HISTORY_KEY) ?? '[]') as unknown;
    if (!Array.isArray(raw)) return [];
    return raw.filter(
      (e): e is HistoryEntry =>
        typeof e?.list_key === 'string' && typeof e?.at === 'string' && !Number.isNaN(Date.parse(e.at)),
    );
  } catch {
    return [];
  }
}

export function rememberUnsubscribe(listKey: string, at = new Date()): void {
  const rest = loadHistory().filter((e) => e.list_key !== listKey);
  rest.push({ list_key: listKey, at: at.toISOString() });
  try {
    localStorage.setItem(HISTORY_KEY, JSON.stringify(rest.slice(-MAX_ENTRIES)));
  } catch {
    // storage full or disabled: verification is a nicety, unsubscribing still worked
  }
}
