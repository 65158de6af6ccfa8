/**
 * UID sets for FETCH and MOVE commands (RFC 3501 §9 sequence-set): compact sets from sorted
 * UIDs, sets split to a command length servers accept, and batches covering a mailbox.
 */
import type { UidBatch } from './fetch-reader.ts';

/**
 * UID ranges that together cover <from>:<UIDNEXT-1>, each expected to hold about `size`
 * messages: the width follows the density (`exists` messages in that span), so a sparse UID
 * space does not turn into thousands of near-empty commands. Without UIDNEXT (which RFC 3501
 * servers must send), <from>:*.
 */
export function uidRanges(exists: number, uidNext: number | null, size: number, from = 1): UidBatch[] {
  if (!uidNext || uidNext <= from) return [{ set: `${from}:*`, first: from }];
  const last = uidNext - 1;
  const width = Math.max(size, Math.ceil((size * (last - from + 1)) / Math.max(exists, 1)));
  const out: UidBatch[] = [];
  for (let lo = from; lo <= last; lo += width) out.push({ set: `${lo}:${Math.min(last, lo + width - 1)}`, first: lo });
  return out;
}

/** Sorted UIDs → the shortest set naming exactly them ("1:500,502"). */
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

/** A sequence set longer than this is split over several commands (Dovecot reads lines up to 64 KB). */
export const MAX_SET_LENGTH = 8000;

/** Splits a compact UID set ("1:500,502,…") at commas into sets of at most MAX_SET_LENGTH characters. */
export function splitSet(set: string, max = MAX_SET_LENGTH): string[] {
  const out: string[] = [];
  let rest = set;
  while (rest.length > max) {
    const cut = rest.lastIndexOf(',', max);
    if (cut <= 0) throw new Error('a single range is longer than a command may be');
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut + 1);
  }
  if (rest !== '') out.push(rest);
  return out;
}
