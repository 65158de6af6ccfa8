/**
 * Reading one folder's headers into the tally, on the lean connection when it can, else
 * through imapflow. Without `since`, the lean connection's EXAMINE says all there is to know
 * (EXISTS, UIDVALIDITY, UIDNEXT; RFC 3501 §6.3.2) and UID ranges up to UIDNEXT-1 read what
 * existed then; the lean connection searches them for list mail window by window and fetches
 * only that (search-first.ts), or fetches them whole where the server's search cannot be used. With a
 * date, imapflow searches (RFC 3501 §6.4.4) while the lean connection EXAMINEs, and the lean
 * connection fetches the UIDs found. When the lean connection sees another UIDVALIDITY or has
 * its FETCH refused before any message, imapflow reads the folder in UID batches instead.
 * Only CPU work happens inside an imapflow FETCH loop: a second command there would deadlock
 * its single pipeline (postalsys/imapflow#159).
 */
import type { ImapFlow } from 'imapflow';
import { fetchHeaders, fetchItems, type UidBatch } from './fetch-reader.ts';
import { examine, uidAt } from './lean-commands.ts';
import type { LeanImap } from './lean-imap.ts';
import type { ResolvedMailbox } from './mailboxes.ts';
import type { ScanCaps } from './scan-caps.ts';
import type { Tally } from './scan-tally.ts';
import { batchesOf, readSearchFirst } from './search-first.ts';
import { sequenceSet, uidRanges } from './uid-sets.ts';

export const HEADER_FIELDS = [
  'from',
  'list-unsubscribe',
  'list-unsubscribe-post',
  'list-id',
  'date',
  'subject',
  'authentication-results',
  'message-id',
  // RFC 8058 §3.1: one-click only when a DKIM signature covers the list headers (one-click-evidence.ts)
  'dkim-signature',
];

export interface ReadContext {
  client: ImapFlow;
  lean: LeanImap | null;
  tally: Tally;
  since: Date | undefined;
  batchSize: number;
  signal: AbortSignal;
  caps: ScanCaps;
  /** false: fetch every message's header fields, without searching first (search-first.ts) */
  searchFirst?: boolean;
  /** messages per searched window (search-first.ts SEARCH_WINDOW) */
  searchWindow?: number;
}

/** 'lean' or 'imapflow': who read the folder; 'aborted': the scan was stopped meanwhile. */
export type ReadOutcome = 'lean' | 'imapflow' | 'aborted';

export async function readMailbox(box: ResolvedMailbox, ctx: ReadContext): Promise<ReadOutcome> {
  const { tally, lean } = ctx;
  tally.enter(box);
  tally.report('searching', box.path);
  const selected = lean && !ctx.since ? await examine(lean, box.path) : null;
  if (lean && selected?.ok && selected.uidValidity !== null) {
    if (selected.exists === 0) return 'lean';
    const room = roomLeft(ctx);
    if (room <= 0) {
      tally.notRead(selected.exists);
      return 'lean';
    }
    // Past the cap on messages per scan, only the newest `reading` messages: from the UID at
    // sequence number exists-reading+1 (scan-caps.ts); without that UID, imapflow's SEARCH decides.
    const reading = Math.min(room, selected.exists);
    const from = reading === selected.exists ? 1 : await uidAt(lean, selected.exists - reading + 1);
    if (from !== null) {
      ctx.tally.uids.uidValidity.set(box.path, selected.uidValidity);
      tally.expect(reading);
      tally.report('fetching', box.path);
      const searched =
        ctx.searchFirst === false
          ? 'whole'
          : await readSearchFirst(lean, { reading, uidNext: selected.uidNext, from }, ctx, (batches) =>
              leanFetch(lean, batches, ctx),
            );
      const how =
        searched === 'whole'
          ? await leanFetch(lean, uidRanges(reading, selected.uidNext, ctx.batchSize, from), ctx)
          : searched;
      if (how !== 'fallback') {
        tally.notRead(selected.exists - reading);
        return how;
      }
      tally.expect(-reading);
    }
  }
  const lock = await ctx.client.getMailboxLock(box.path, { readOnly: true });
  try {
    const mailbox = ctx.client.mailbox;
    // An empty mailbox answers BAD to any sequence set (postalsys/imapflow#209).
    if (!mailbox || mailbox.exists === 0) return 'imapflow';
    tally.uids.uidValidity.set(box.path, mailbox.uidValidity);
    const leanSelected = lean && ctx.since && !selected ? examine(lean, box.path) : null;
    const all = await searchUids(ctx.client, ctx.since);
    // the newest messages within the cap on messages per scan (scan-caps.ts)
    const room = Math.max(0, roomLeft(ctx));
    const found = all.length > room ? all.slice(all.length - room) : all;
    tally.notRead(all.length - found.length);
    tally.expect(found.length);
    tally.report('fetching', box.path);
    if (found.length === 0) return 'imapflow';
    const other = await leanSelected;
    if (lean && other?.ok && other.uidValidity === mailbox.uidValidity) {
      const how = await leanFetch(lean, batchesOf(found, ctx.batchSize), ctx);
      if (how !== 'fallback') return how;
    }
    return await imapflowFetch(found, ctx);
  } finally {
    lock.release();
  }
}

/**
 * The FETCH of `batches` on the lean connection. 'fallback': refused before any message, so
 * imapflow reads this folder instead; a connection lost midway fails the scan (throws).
 */
async function leanFetch(conn: LeanImap, batches: UidBatch[], ctx: ReadContext): Promise<ReadOutcome | 'fallback'> {
  const { tally } = ctx;
  let since = 0;
  const before = tally.scanned;
  const outcome = await fetchHeaders(
    conn,
    batches,
    (m) => {
      tally.take(m.uid, m.seen, m.headers);
      if (++since >= ctx.batchSize) {
        since = 0;
        tally.flush(false);
        conn.yieldOnce(); // the process's other sockets (a cancel, other scans) get their turn
      }
    },
    8,
    fetchItems(ctx.caps.headerBytes),
  );
  // Not forced: a folder read search-first calls this once per window, and a forced flush
  // would snapshot and send every subscription the window touched each time (at 100,000
  // messages, 20 windows × ~1,000 lists). The folder's end flushes (scan.ts).
  tally.flush(false);
  if (outcome.ok) return 'lean';
  if (ctx.signal.aborted) return 'aborted';
  if (outcome.code === 'REFUSED' && tally.scanned === before) return 'fallback';
  throw new Error(`lean fetch: ${outcome.code}`);
}

/** Messages this scan may still read (scan-caps.ts). */
function roomLeft(ctx: ReadContext): number {
  return ctx.caps.messages - ctx.tally.scanned;
}

/**
 * imapflow quotes a section it does not know, so it cannot ask for part of HEADER.FIELDS: this
 * path (only for servers that refuse the lean connection) gets the fields whole, and the tally
 * cuts them to the cap.
 */
async function imapflowFetch(found: number[], ctx: ReadContext): Promise<ReadOutcome> {
  for (let i = 0; i < found.length && !ctx.signal.aborted; i += ctx.batchSize) {
    const range = sequenceSet(found.slice(i, i + ctx.batchSize));
    for await (const msg of ctx.client.fetch(
      range,
      { uid: true, flags: true, headers: HEADER_FIELDS },
      { uid: true },
    )) {
      ctx.tally.take(msg.uid, msg.flags?.has('\\Seen') ?? false, msg.headers ?? Buffer.alloc(0));
      if (ctx.signal.aborted) break;
    }
    ctx.tally.flush(false);
  }
  return ctx.signal.aborted ? 'aborted' : 'imapflow';
}

/**
 * The UIDs to read, ascending, from one UID SEARCH (SINCE when a date is given, RFC 3501
 * §6.4.4; else ALL). Searching first keeps sparse UID spaces cheap: no round trips for empty
 * ranges; the FETCH gets them as compact sets ("1:500,502").
 */
async function searchUids(client: ImapFlow, since: Date | undefined): Promise<number[]> {
  const found = await client.search(since ? { since } : { all: true }, { uid: true });
  return (Array.isArray(found) ? found : []).sort((a, b) => a - b);
}
