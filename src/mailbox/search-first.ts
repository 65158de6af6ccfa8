/**
 * Search first, then fetch (the lean connection, no `since`): most of what a mailbox holds has
 * no List-Unsubscribe field, is read only to be skipped, and costs as many bytes as list mail.
 * `UID SEARCH UID <lo:hi> HEADER LIST-UNSUBSCRIBE ""` (RFC 3501 §6.4.4, RFC 9051 §6.4.4: an
 * empty string matches every message that has the field at all) names the messages of a window
 * of UIDs that carry the field, in a few bytes each, and only those are fetched. The others are
 * counted as read (`Tally.skipped`): every figure the scan reports stays what fetching them all
 * gave, since a message without the field is never a subscription.
 *
 * The first window is fetched whole, as before, and searched too: when the search missed a
 * message whose fetched header does carry the field, the server's search is not trusted and the
 * folder is fetched whole. A server that refuses the SEARCH (NO, BAD) gets the same. A window
 * is searched only when the one before it is done: SEARCH answers are untagged and would be
 * ambiguous next to another command (RFC 9051 §5.5).
 */
import { fetchHeaders, fetchItems, type UidBatch } from './fetch-reader.ts';
import type { ImapResponse } from './imap-tokenizer.ts';
import type { LeanImap } from './lean-imap.ts';
import type { ReadContext, ReadOutcome } from './scan-read.ts';
import { sequenceSet, splitSet, uidRanges } from './uid-sets.ts';

/** Messages per searched window: a few round trips per 10,000 messages, progress in between. */
export const SEARCH_WINDOW = 2000;

/** `* SEARCH 4 7 9` → the numbers within [lo, hi]. */
export function searchNumbers(r: ImapResponse, lo: number, hi: number, into: number[]): boolean {
  const t = r.texts[0]!;
  // "* SEARCH" in any case (RFC 9051 §9: keywords are case-insensitive), then SP-separated numbers
  if (t.length < 8 || t.subarray(0, 8).toString('latin1').toUpperCase() !== '* SEARCH') return false;
  let n = -1;
  for (let i = 8; i <= t.length; i++) {
    const b = i < t.length ? t[i]! : 0x20;
    if (b >= 0x30 && b <= 0x39) n = (n < 0 ? 0 : n * 10) + (b - 0x30);
    else {
      if (n >= lo && n <= hi) into.push(n);
      n = -1;
    }
  }
  return true;
}

/** The UIDs in `lo:hi` with a List-Unsubscribe field, ascending; null when the server refused. */
async function searchListUids(conn: LeanImap, lo: number, hi: number): Promise<number[] | null> {
  const found: number[] = [];
  const answer = await conn.run(`UID SEARCH UID ${lo}:${hi} HEADER LIST-UNSUBSCRIBE ""`, {
    onUntagged: (r) => searchNumbers(r, lo, hi, found),
  });
  if (!answer.ok) throw new Error(`lean search: ${answer.code}`);
  if (answer.status !== 'OK') return null;
  return found.sort((a, b) => a - b);
}

/** A header block with a List-Unsubscribe field line (RFC 5322 §2.2: name, optional WSP, colon). */
const LIST_UNSUBSCRIBE = /(?:^|\n)list-unsubscribe[ \t]*:/i;
const hasListUnsubscribe = (headers: Buffer) => LIST_UNSUBSCRIBE.test(headers.toString('latin1'));

/** Batches of about `size` UIDs each, as compact sets ("1:500,502"). */
export function batchesOf(found: number[], size: number): UidBatch[] {
  const batches: UidBatch[] = [];
  for (let i = 0; i < found.length; i += size) {
    const set = sequenceSet(found.slice(i, i + size));
    batches.push(...splitSet(set).map((s) => ({ set: s, first: Number(s.split(/[:,]/)[0]) })));
  }
  return batches;
}

export interface SearchFirstRange {
  /** messages in the range (EXAMINE's EXISTS, within the cap) */
  reading: number;
  uidNext: number | null;
  from: number;
}

/**
 * Reads `from:UIDNEXT-1` window by window. 'whole': the range is too small to split, or the
 * server's search cannot be used; the caller fetches it whole. Otherwise how it ended; a lost
 * connection throws, as the plain FETCH does.
 */
export async function readSearchFirst(
  conn: LeanImap,
  range: SearchFirstRange,
  ctx: ReadContext,
  fetch: (batches: UidBatch[]) => Promise<ReadOutcome | 'fallback'>,
): Promise<ReadOutcome | 'whole'> {
  const { tally } = ctx;
  const size = ctx.searchWindow ?? SEARCH_WINDOW;
  if (!range.uidNext || range.reading < 2 * size) return 'whole';
  const windows = uidRanges(range.reading, range.uidNext, size, range.from);
  const bounds = windows.map((w) => w.set.split(':').map(Number) as [number, number]);
  const before = tally.scanned;

  // The first window: searched, then fetched whole, and the search held to what was fetched.
  const [lo0, hi0] = bounds[0]!;
  const listed = await searchListUids(conn, lo0, hi0);
  if (listed === null) return 'whole';
  const named = new Set(listed);
  let missed = 0;
  const first = await fetchHeaders(
    conn,
    uidRanges(size, hi0 + 1, ctx.batchSize, lo0),
    (m) => {
      if (!named.has(m.uid) && hasListUnsubscribe(m.headers)) missed++;
      tally.take(m.uid, m.seen, m.headers);
    },
    8,
    fetchItems(ctx.caps.headerBytes),
  );
  tally.flush(true);
  if (!first.ok) {
    if (ctx.signal.aborted) return 'aborted';
    if (first.code === 'REFUSED' && tally.scanned === before) return 'whole';
    throw new Error(`lean fetch: ${first.code}`);
  }
  // What the server's search left out: fetch the rest of the folder whole.
  if (missed > 0) return finish(await fetch(uidRanges(range.reading, range.uidNext, ctx.batchSize, hi0 + 1)));

  const width = range.uidNext - range.from;
  let ruled = 0;
  for (let w = 1; w < windows.length; w++) {
    if (ctx.signal.aborted) return 'aborted';
    const [lo, hi] = bounds[w]!;
    const found = await searchListUids(conn, lo, hi);
    // refused midway (the first window's search was answered): this window and the rest whole
    if (found === null) return finish(await fetch(uidRanges(range.reading, range.uidNext, ctx.batchSize, lo)));
    // progress only: the window's share of the folder, less what will be fetched of it, never
    // more than skipped() will count at the end (so the count shown never goes back)
    const room = range.reading - (tally.scanned - before) - ruled - found.length;
    const out = Math.max(0, Math.min(room, Math.round((range.reading * (hi - lo + 1)) / width) - found.length));
    ruled += out;
    tally.ruledOut(out);
    if (found.length === 0) continue;
    const how = await fetch(batchesOf(found, ctx.batchSize));
    if (how === 'aborted') return how;
    if (how === 'fallback') throw new Error('lean fetch: refused after a search');
  }
  return finish('lean');

  function finish(how: ReadOutcome | 'fallback'): ReadOutcome {
    if (how === 'fallback') throw new Error('lean fetch: refused midway');
    if (how === 'aborted') return how;
    // every message of the range not fetched had no List-Unsubscribe field: read, not a list
    tally.skipped(Math.max(0, range.reading - (tally.scanned - before)));
    return how;
  }
}
