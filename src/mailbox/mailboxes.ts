/**
 * Which folders a scan reads. By default (nothing asked, or the role "default"): the mailbox
 * flagged \All when the server has one (RFC 6154 §2; Gmail's All Mail holds the inbox and
 * everything archived), else INBOX and, when there is one, the \Archive mailbox. Junk and
 * Trash are read only when asked for. A person may also name a path ("Newsletters") or a role:
 * "all" (\All), "archive" (\Archive), "junk"/"spam" (\Junk, else a folder named Junk, Spam or
 * Bulk), "trash" (\Trash, else a folder named Trash, Bin or Deleted). A path that does not
 * exist is an error; a role the server does not have is left out. Paths are matched without
 * regard to case (INBOX is case-insensitive by RFC 3501 §5.1; for other names it spares a
 * person the exact spelling).
 */
import type { ImapFlow } from 'imapflow';

export interface ResolvedMailbox {
  path: string;
  junk: boolean;
}

interface Listed {
  path: string;
  specialUse?: string;
}

const ALL = { flag: '\\All' };
const ARCHIVE = { flag: '\\Archive' };
const JUNK = { flag: '\\Junk', name: /^(junk|spam|bulk)( mail| e-?mail)?$/i };
const TRASH = { flag: '\\Trash', name: /^(trash|bin|deleted( items| messages)?)$/i };
const ROLE: Record<string, { flag: string; name?: RegExp }> = {
  all: ALL,
  'all mail': ALL,
  '\\all': ALL,
  archive: ARCHIVE,
  '\\archive': ARCHIVE,
  junk: JUNK,
  spam: JUNK,
  '\\junk': JUNK,
  trash: TRASH,
  '\\trash': TRASH,
};

const leaf = (path: string) => path.split(/[/.]/).at(-1) ?? path;
const isJunk = (m: Listed) => m.specialUse === JUNK.flag || JUNK.name.test(leaf(m.path));

/** RFC 6154: \All when advertised; otherwise INBOX plus \Archive. */
export function defaultMailboxes(list: Listed[]): Listed[] {
  const all = list.find((m) => m.specialUse === '\\All');
  if (all) return [all];
  const inbox = list.find((m) => m.path.toUpperCase() === 'INBOX');
  const archive = list.find((m) => m.specialUse === '\\Archive');
  return [inbox, archive].filter((m): m is Listed => m !== undefined);
}

function byRole(list: Listed[], role: { flag: string; name?: RegExp }): Listed | undefined {
  return list.find((m) => m.specialUse === role.flag) ?? (role.name && list.find((m) => role.name!.test(leaf(m.path))));
}

export function pickMailboxes(
  list: Listed[],
  requested: string[] | undefined,
): { ok: true; mailboxes: ResolvedMailbox[] } | { ok: false; missing: string[]; available: string[] } {
  const out: ResolvedMailbox[] = [];
  const missing: string[] = [];
  const add = (m: Listed) => {
    if (!out.some((o) => o.path === m.path)) out.push({ path: m.path, junk: isJunk(m) });
  };
  for (const name of requested?.length ? requested : ['default']) {
    const key = name.trim().toLowerCase();
    if (key === 'default') defaultMailboxes(list).forEach(add);
    else if (ROLE[key]) {
      const hit = byRole(list, ROLE[key]);
      if (hit) add(hit);
    } else {
      const hit = list.find((m) =>
        key === 'inbox' ? m.path.toUpperCase() === 'INBOX' : m.path.toLowerCase() === name.toLowerCase(),
      );
      if (hit) add(hit);
      else missing.push(name);
    }
  }
  if (missing.length) return { ok: false, missing, available: list.map((m) => m.path).slice(0, 50) };
  return { ok: true, mailboxes: out };
}

export async function resolveMailboxes(client: ImapFlow, requested: string[] | undefined) {
  return pickMailboxes(await client.list(), requested);
}
