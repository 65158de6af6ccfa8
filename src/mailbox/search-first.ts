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
 * folder is fetched whole. A server that refuses the SEARCH (NO, BAD) gets the same. A window's
 * SEARCH is sent behind the FETCH of the window before it, never beside another SEARCH: their
 * untagged answers would be ambiguous (RFC 9051 §5.5), a FETCH's are not.
 */
import { fetchHeaders, fetchItems, type UidBatch } from './fetch-reader.ts';
import type { ImapResponse } from './imap-tokenizer.ts';
import type { LeanImap } from './lean-imap.ts';
import type { ReadContext, ReadOutcome } from './scan-read.ts';
import { sequenceSet, splitSet, uidRanges } from './uid-sets.ts';

/**
 * Messages in the first window, fetched whole and searched to check the server's search; then
 * per searched window. Larger windows stall less (each ends the pipeline once), smaller ones
 * report progress sooner: at 100k warm, windows of 5000 cost ~1 % over fetching everything,
 * windows of 2000 ~19 % (docs/benchmarks.md, bench/scan).
 */
export const FIRST_WINDOW = 2000;
export const SEARCH_WINDOW = 5000;

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

type Searched = { ok: true; uids: number[] } | { ok: false; refused: boolean; code: string };

/**
 * The UIDs in `lo:hi` with a List-Unsubscribe field, ascending. It may be sent behind FETCHes
 * still in flight: it claims the `* SEARCH` answer (lean-wire.ts RunOptions.claims).
 */
async function searchListUids(conn: LeanImap, lo: number, hi: number): Promise<Searched> {
  const uids: number[] = [];
  const answer = await conn.run(`UID SEARCH UID ${lo}:${hi} HEADER LIST-UNSUBSCRIBE ""`, {
    claims: 'SEARCH',
    onUntagged: (r) => searchNumbers(r, lo, hi, uids),
  });
  if (!answer.ok) return { ok: false, refused: false, code: answer.code };
  if (answer.status !== 'OK') return { ok: false, refused: true, code: answer.status };
  return { ok: true, uids: uids.sort((a, b) => a - b) };
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
  const firstSize = Math.min(size, FIRST_WINDOW);
  // a folder the first window covers is fetched whole; past it, searching pays for itself
  if (!range.uidNext || range.reading <= firstSize) return 'whole';
  // the first window of about firstSize messages, then windows of about `size`
  const [w0] = uidRanges(range.reading, range.uidNext, firstSize, range.from);
  const [lo0, hi0] = w0!.set.split(':').map(Number) as [number, number];
  if (!(hi0 + 1 < range.uidNext)) return 'whole';
  const windows = [w0!, ...uidRanges(range.reading - firstSize, range.uidNext, size, hi0 + 1)];
  const bounds = windows.map((w) => w.set.split(':').map(Number) as [number, number]);
  const before = tally.scanned;

  // The first window: fetched whole (its subscriptions go out at once), with its SEARCH sent
  // behind the FETCH; the search is then held to what was fetched.
  let missed = 0;
  const fetched: { uid: number; listed: boolean }[] = [];
  const first = fetchHeaders(
    conn,
    uidRanges(firstSize, hi0 + 1, ctx.batchSize, lo0),
    (m) => {
      fetched.push({ uid: m.uid, listed: hasListUnsubscribe(m.headers) });
      tally.take(m.uid, m.seen, m.headers);
    },
    8,
    fetchItems(ctx.caps.headerBytes),
  );
  const listing = searchListUids(conn, lo0, hi0);
  const [done, listed] = await Promise.all([first, listing]);
  tally.flush(true);
  if (!done.ok) {
    if (ctx.signal.aborted) return 'aborted';
    if (done.code === 'REFUSED' && tally.scanned === before) return 'whole';
    throw new Error(`lean fetch: ${done.code}`);
  }
  if (!listed.ok && !listed.refused) throw new Error(`lean search: ${listed.code}`);
  if (listed.ok) {
    const named = new Set(listed.uids);
    for (const m of fetched) if (m.listed && !named.has(m.uid)) missed++;
  }
  // A refused search, or one that left out list mail: fetch the rest of the folder whole.
  if (!listed.ok || missed > 0)
    return finish(await fetch(uidRanges(range.reading - firstSize, range.uidNext, ctx.batchSize, hi0 + 1)));

  // Then window by window; each window's SEARCH goes out behind the FETCH of the one before, so
  // the server searches while this side reads (one SEARCH in flight at a time).
  const width = range.uidNext - range.from;
  let ruled = 0;
  const search = (w: number) => searchListUids(conn, bounds[w]![0], bounds[w]![1]);
  let next: Promise<Searched> | null = search(1);
  for (let w = 1; w < windows.length; w++) {
    const found = await next!;
    next = null;
    const [lo, hi] = bounds[w]!;
    if (!found.ok) {
      if (!found.refused) throw new Error(`lean search: ${found.code}`);
      // refused midway (the first window's search was answered): this window and the rest whole
      return finish(await fetch(uidRanges(range.reading, range.uidNext, ctx.batchSize, lo)));
    }
    // progress only: the window's share of the folder, less what will be fetched of it, never
    // more than skipped() will count at the end (so the count shown never goes back)
    const room = range.reading - (tally.scanned - before) - ruled - found.uids.length;
    const out = Math.max(0, Math.min(room, Math.round((range.reading * (hi - lo + 1)) / width) - found.uids.length));
    ruled += out;
    tally.ruledOut(out);
    const fetching = found.uids.length ? fetch(batchesOf(found.uids, ctx.batchSize)) : null;
    if (w + 1 < windows.length && !ctx.signal.aborted) next = search(w + 1);
    const how = fetching ? await fetching : 'lean';
    if (how === 'aborted' || ctx.signal.aborted) {
      // the connection is closed with the scan; the search in flight ends with it
      void next?.catch(() => {});
      return 'aborted';
    }
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
