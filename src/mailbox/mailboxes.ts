/**
 * Which folders a scan reads. Names a person may give: a path ("INBOX", "Newsletters"),
 * or a role understood across providers via RFC 6154 special-use flags: "all" (Gmail's
 * All Mail, \All), "junk"/"spam" (\Junk), "archive" (\Archive). INBOX is matched
 * case-insensitively (RFC 3501 §5.1).
 */
import type { ImapFlow } from 'imapflow';

export interface ResolvedMailbox {
  path: string;
  junk: boolean;
}

const ROLE: Record<string, string> = {
  all: '\\All',
  'all mail': '\\All',
  '\\all': '\\All',
  junk: '\\Junk',
  spam: '\\Junk',
  '\\junk': '\\Junk',
  archive: '\\Archive',
  '\\archive': '\\Archive',
};

const JUNK_NAME = /^(junk|spam|bulk)( mail| e-?mail)?$/i;

export async function resolveMailboxes(
  client: ImapFlow,
  requested: string[] | undefined,
): Promise<{ ok: true; mailboxes: ResolvedMailbox[] } | { ok: false; missing: string[]; available: string[] }> {
  const list = await client.list();
  const isJunk = (path: string, specialUse?: string) =>
    specialUse === '\\Junk' || JUNK_NAME.test(path.split(/[/.]/).at(-1) ?? path);
  const wanted = requested?.length ? requested : ['INBOX'];
  const out: ResolvedMailbox[] = [];
  const missing: string[] = [];
  for (const name of wanted) {
    const role = ROLE[name.trim().toLowerCase()];
    const hit = role
      ? list.find((m) => m.specialUse === role)
      : list.find((m) =>
          name.toUpperCase() === 'INBOX'
            ? m.path.toUpperCase() === 'INBOX'
            : m.path.toLowerCase() === name.toLowerCase(),
        );
    if (!hit) missing.push(name);
    else if (!out.some((m) => m.path === hit.path))
      out.push({ path: hit.path, junk: isJunk(hit.path, hit.specialUse) });
  }
  if (missing.length) return { ok: false, missing, available: list.map((m) => m.path).slice(0, 50) };
  return { ok: true, mailboxes: out };
}
