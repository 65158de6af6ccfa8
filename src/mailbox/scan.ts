/**
 * The header-only inbox scan, independent of any transport (the /ws channel and the MCP
 * tools drive it). It reads only the header fields it needs (BODY.PEEK, so nothing is
 * marked read) and the \Seen flag, in UID batches, and keeps nothing per message: each
 * message is folded into the grouping and dropped, so memory stays flat however large
 * the mailbox. Subscriptions are reported from the first batch on and again whenever
 * they change; progress is reported at every phase and at least every `progressMs`.
 * Only CPU work happens inside a FETCH loop: a second IMAP command there would deadlock
 * the single command pipeline (postalsys/imapflow#159).
 */
import type { ImapFlow } from 'imapflow';
import type { OutboundGuard } from '../outbound/guard.ts';
import { createGrouper } from './grouping.ts';
import { parseMessage } from './headers.ts';
import {
  DEFAULT_IMAP_TIMEOUTS,
  describeImapError,
  type ImapCredentials,
  type ImapTimeouts,
  openImap,
} from './imap-connect.ts';
import { resolveMailboxes } from './mailboxes.ts';
import type { Endpoint } from './providers.ts';
import type { ServiceMatch, Subscription } from './types.ts';

export const HEADER_FIELDS = [
  'from',
  'list-unsubscribe',
  'list-unsubscribe-post',
  'list-id',
  'date',
  'subject',
  'authentication-results',
];

export type ScanPhase = 'connecting' | 'listing' | 'searching' | 'fetching' | 'finishing';

export interface ScanProgress {
  phase: ScanPhase;
  done: number;
  total: number;
  mailbox?: string;
}

export interface ScanHooks {
  progress(p: ScanProgress): void;
  subscription(s: Subscription): void;
  /**
   * Called once the sign-in worked and the folders exist, before any mail is read: the
   * moment a scan starts to count against the daily allowance. A refusal ends the scan.
   */
  started(): Promise<{ ok: true } | { ok: false; code: string; message: string }>;
}

export interface ScanOptions {
  mailboxes?: string[];
  since?: Date;
  signal?: AbortSignal;
  matchService: (domain: string) => ServiceMatch | null;
  batchSize?: number;
  progressMs?: number;
  timeoutMs?: number;
  imapTimeouts?: ImapTimeouts;
}

export interface ScanUidIndex {
  /** subscription id → mailbox → UIDs (numbers only: enough to archive, nothing personal) */
  bySubscription: Map<string, Map<string, number[]>>;
  /** mailbox → UIDVALIDITY when it was read */
  uidValidity: Map<string, bigint>;
}

export type ScanResult =
  | {
      ok: true;
      scanned: number;
      subscriptions: Subscription[];
      durationMs: number;
      cancelled: boolean;
      uids: ScanUidIndex;
    }
  | { ok: false; code: string; message: string; authenticated: boolean };

export async function runScan(
  endpoint: Endpoint,
  creds: ImapCredentials,
  guard: OutboundGuard,
  opts: ScanOptions,
  hooks: ScanHooks,
): Promise<ScanResult> {
  const started = Date.now();
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const deadline = setTimeout(
    () => {
      timedOut = true;
      stop.abort();
    },
    opts.timeoutMs ?? 15 * 60_000,
  );

  hooks.progress({ phase: 'connecting', done: 0, total: 0 });
  const session = await openImap(endpoint, creds, guard, opts.imapTimeouts ?? DEFAULT_IMAP_TIMEOUTS);
  if (!session.ok) {
    clearTimeout(deadline);
    return { ok: false, code: session.code, message: session.message, authenticated: false };
  }
  const client = session.client;
  const grouper = createGrouper({ matchService: opts.matchService });
  const uids: ScanUidIndex = { bySubscription: new Map(), uidValidity: new Map() };
  let scanned = 0;
  let total = 0;
  let current: ScanProgress = { phase: 'listing', done: 0, total: 0 };
  const ticker = setInterval(() => hooks.progress({ ...current, done: scanned }), opts.progressMs ?? 250);
  try {
    hooks.progress(current);
    const resolved = await resolveMailboxes(client, opts.mailboxes);
    if (!resolved.ok) {
      return {
        ok: false,
        code: 'MAILBOX_NOT_FOUND',
        message: `No folder named ${resolved.missing.join(', ')}. Folders: ${resolved.available.join(', ')}`,
        authenticated: true,
      };
    }
    const go = await hooks.started();
    if (!go.ok) return { ...go, authenticated: true };

    for (const box of resolved.mailboxes) {
      if (stop.signal.aborted) break;
      current = { phase: 'searching', done: scanned, total, mailbox: box.path };
      hooks.progress(current);
      const lock = await client.getMailboxLock(box.path, { readOnly: true });
      try {
        const mailbox = client.mailbox;
        const exists = mailbox ? mailbox.exists : 0;
        // An empty mailbox answers BAD to any sequence set (postalsys/imapflow#209).
        if (!mailbox || exists === 0) continue;
        uids.uidValidity.set(box.path, mailbox.uidValidity);
        const ranges = await uidRanges(client, opts.since, opts.batchSize ?? 500);
        total += ranges.count;
        current = { phase: 'fetching', done: scanned, total, mailbox: box.path };
        hooks.progress(current);
        for (const range of ranges.batches) {
          if (stop.signal.aborted) break;
          const changed = new Set<string>();
          for await (const msg of client.fetch(
            range,
            { uid: true, flags: true, headers: HEADER_FIELDS },
            { uid: true },
          )) {
            scanned++;
            const parsed = await parseMessage({
              uid: msg.uid,
              mailbox: box.path,
              junk: box.junk,
              seen: msg.flags?.has('\\Seen') ?? false,
              headers: msg.headers ?? Buffer.alloc(0),
            });
            const id = grouper.add(parsed);
            if (id) {
              changed.add(id);
              const perBox = uids.bySubscription.get(id) ?? new Map<string, number[]>();
              uids.bySubscription.set(id, perBox);
              const list = perBox.get(box.path) ?? [];
              perBox.set(box.path, list);
              list.push(msg.uid);
            }
            if (stop.signal.aborted) break;
          }
          for (const id of changed) hooks.subscription(grouper.get(id));
        }
      } finally {
        lock.release();
      }
    }
    if (timedOut)
      return { ok: false, code: 'TIMEOUT', message: 'The scan took too long and was stopped.', authenticated: true };
    hooks.progress({ phase: 'finishing', done: scanned, total });
    return {
      ok: true,
      scanned,
      subscriptions: grouper.all(),
      durationMs: Date.now() - started,
      cancelled: stop.signal.aborted,
      uids,
    };
  } catch (err) {
    if (timedOut)
      return { ok: false, code: 'TIMEOUT', message: 'The scan took too long and was stopped.', authenticated: true };
    const d = describeImapError(err, `${endpoint.host}:${endpoint.port}`);
    return {
      ok: false,
      code: d.code === 'AUTH_FAILED' ? 'AUTH_FAILED' : 'SCAN_FAILED',
      message:
        d.code === 'AUTH_FAILED'
          ? d.message
          : 'The connection to the mail server was lost during the scan. Please try again.',
      authenticated: true,
    };
  } finally {
    clearInterval(ticker);
    clearTimeout(deadline);
    opts.signal?.removeEventListener('abort', onAbort);
    // Logout is polite but must not hang a dead connection; close() always frees the socket.
    await Promise.race([client.logout().catch(() => {}), new Promise((r) => setTimeout(r, 1000))]);
    client.close();
  }
}

/**
 * UID batches from one UID SEARCH (SINCE when a date is given, RFC 3501 §6.4.4; else ALL).
 * Searching first keeps sparse UID spaces cheap: no round trips for empty ranges.
 * Each batch is written as a compact sequence set ("1:500,502").
 */
async function uidRanges(
  client: ImapFlow,
  since: Date | undefined,
  size: number,
): Promise<{ count: number; batches: string[] }> {
  const found = await client.search(since ? { since } : { all: true }, { uid: true });
  const uids = (Array.isArray(found) ? found : []).sort((a, b) => a - b);
  const batches: string[] = [];
  for (let i = 0; i < uids.length; i += size) batches.push(sequenceSet(uids.slice(i, i + size)));
  return { count: uids.length, batches };
}

export function sequenceSet(sorted: number[]): string {
  const parts: string[] = [];
  let start = sorted[0];
  let prev = start;
  for (const n of sorted.slice(1).concat(Number.NaN)) {
    if (n === (prev ?? 0) + 1) {
      prev = n;
      continue;
    }
    if (start !== undefined) parts.push(start === prev ? String(start) : `${start}:${prev}`);
    start = n;
    prev = n;
  }
  return parts.join(',');
}
