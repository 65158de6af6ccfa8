/**
 * Moves a sender's past messages out of the way (RFC 6851 UID MOVE) after unsubscribing:
 * to the special-use \Archive folder (RFC 6154), or Gmail's All Mail (which is how Gmail
 * archives), or a folder named Archive created on demand; or to \Trash when asked. The
 * UIDs come from the scan; a mailbox whose UIDVALIDITY changed since then (RFC 3501
 * §2.3.1.1) holds different messages under those UIDs, so it is left alone. IMAP runs one
 * command at a time, so moves are serialised through one session.
 */
import type { ImapFlow } from 'imapflow';
import { type ImapCredentials, openImap } from '../mailbox/imap-connect.ts';
import type { Endpoint } from '../mailbox/providers.ts';
import { sequenceSet } from '../mailbox/uid-sets.ts';
import type { OutboundGuard } from '../outbound/guard.ts';

export interface ScanUids {
  /** subscription id → mailbox → UIDs */
  bySubscription: Map<string, Map<string, number[]>>;
  /** mailbox → UIDVALIDITY at scan time */
  uidValidity: Map<string, bigint>;
}

export interface Archiver {
  move(subscriptionId: string): Promise<{ moved: number; detail?: string }>;
  close(): Promise<void>;
}

export function createArchiver(opts: {
  imap: Endpoint;
  /** or where to get them when the session opens (an OAuth access token fresh at that moment) */
  creds: ImapCredentials | (() => Promise<ImapCredentials | { error: string }>);
  guard: OutboundGuard;
  uids: ScanUids;
  to: 'archive' | 'trash';
}): Archiver {
  let session: Promise<{ client: ImapFlow; dest: string } | { error: string }> | null = null;
  let chain: Promise<unknown> = Promise.resolve();

  async function open() {
    const creds = typeof opts.creds === 'function' ? await opts.creds() : opts.creds;
    if ('error' in creds) return { error: creds.error };
    const s = await openImap(opts.imap, creds, opts.guard);
    if (!s.ok) return { error: s.message };
    const list = await s.client.list();
    const role = opts.to === 'trash' ? '\\Trash' : '\\Archive';
    let dest = list.find((m) => m.specialUse === role)?.path;
    if (!dest && opts.to === 'archive') dest = list.find((m) => m.specialUse === '\\All')?.path;
    if (!dest) {
      dest = opts.to === 'trash' ? 'Trash' : 'Archive';
      if (!list.some((m) => m.path === dest)) await s.client.mailboxCreate(dest);
    }
    return { client: s.client, dest };
  }

  async function moveNow(id: string): Promise<{ moved: number; detail?: string }> {
    const boxes = opts.uids.bySubscription.get(id);
    if (!boxes?.size) return { moved: 0 };
    session ??= open().catch((err: Error) => ({ error: `archiving failed (${err.message})` }));
    const s = await session;
    if ('error' in s) return { moved: 0, detail: `Past mail was not archived: ${s.error}` };
    let moved = 0;
    const notes: string[] = [];
    for (const [mailbox, uids] of boxes) {
      if (mailbox === s.dest || !uids.length) continue;
      const lock = await s.client.getMailboxLock(mailbox);
      try {
        const now = s.client.mailbox ? s.client.mailbox.uidValidity : undefined;
        if (now !== opts.uids.uidValidity.get(mailbox)) {
          notes.push(`${mailbox} changed since the scan, so its mail was left in place; scan again to archive it.`);
          continue;
        }
        const r = await s.client.messageMove(sequenceSet([...uids].sort((a, b) => a - b)), s.dest, { uid: true });
        moved += r ? (r.uidMap?.size ?? uids.length) : 0;
      } finally {
        lock.release();
      }
    }
    return { moved, ...(notes.length ? { detail: notes.join(' ') } : {}) };
  }

  return {
    move(id) {
      const next = chain.then(() => moveNow(id));
      chain = next.catch(() => {});
      return next.catch((err: Error) => ({ moved: 0, detail: `Past mail was not archived (${err.message}).` }));
    },
    async close() {
      await chain;
      const s = await session;
      if (s && 'client' in s) {
        await Promise.race([s.client.logout().catch(() => {}), new Promise((r) => setTimeout(r, 1000))]);
        s.client.close();
      }
    },
  };
}
