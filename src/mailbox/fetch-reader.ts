/**
 * The scan's one hot command, read lean: `UID FETCH <set> (UID FLAGS BODY.PEEK[HEADER.FIELDS
 * (…the scan's fields…)])` on a connection of its own (lean-imap.ts), streaming `{uid, seen, headers}`.
 *
 * imapflow tokenizes every response into objects and costs ~50 µs of client CPU per message,
 * 7.5–8.5× the raw limit on a warm Dovecot (docs/benchmarks.md, bench/scan). Here the tokenizer
 * only splits lines and literals, and this file reads a FETCH response's few items straight from
 * the bytes (RFC 3501 §7.4.2): UID and FLAGS in any order, the BODY[…] value as literal, quoted
 * string or NIL. Anything else in a FETCH (MODSEQ, X-GM-…) is skipped whole. Untagged responses
 * that are not FETCH (EXPUNGE, EXISTS, OK/NO notes) are ignored; so is a FETCH without the
 * header section (a flag change another client made). A FETCH whose items cannot be read is
 * dropped and counted, not guessed at.
 */
import type { ImapResponse } from './imap-tokenizer.ts';
import type { LeanFailure, LeanImap, Tagged } from './lean-imap.ts';
import { DEFAULT_SCAN_CAPS } from './scan-caps.ts';

/**
 * RFC 3501 §6.4.5: BODY.PEEK never sets \Seen, and `<0.N>` asks for at most N octets of the
 * section (a partial FETCH), so a sender's huge header block never crosses the wire whole
 * (scan-caps.ts). The order matches imapflow's request.
 */
export function fetchItems(maxHeaderBytes: number): string {
  return `(UID FLAGS BODY.PEEK[HEADER.FIELDS (FROM LIST-UNSUBSCRIBE LIST-UNSUBSCRIBE-POST LIST-ID DATE SUBJECT AUTHENTICATION-RESULTS MESSAGE-ID DKIM-SIGNATURE)]<0.${maxHeaderBytes}>)`;
}

export const FETCH_ITEMS = fetchItems(DEFAULT_SCAN_CAPS.headerBytes);

export interface FetchedHeaders {
  uid: number;
  seen: boolean;
  headers: Buffer;
}

export interface FetchOutcome {
  ok: true;
  messages: number;
  /** FETCH responses for our section whose items could not be read (dropped) */
  malformed: number;
}

/** One FETCH command's UIDs; a scan's batches cover ascending, disjoint UID ranges. */
export interface UidBatch {
  set: string;
  /** the lowest UID the set can hold: batch i holds the UIDs from its `first` to the next one's */
  first: number;
}

/**
 * Runs the FETCH for each batch on a connection where a mailbox is selected, with at most
 * `window` commands in flight: the next is sent as one completes, so a high-latency link stays
 * busy while the server never runs more than `window` batches ahead of what was read (a server
 * that dies mid-scan is noticed; a cancel wastes little of its work).
 *
 * Servers may run pipelined FETCHes at the same time and interleave their answers (Dovecot
 * does), so each message is placed in its batch by UID and the messages of a later batch are
 * held until the earlier ones are complete: `onMessage` sees them exactly in the order one FETCH
 * of all of them would give, synchronously as they can be released. A tagged NO/BAD, a dropped
 * connection, a timeout or a cancel ends it as a failure (messages not yet released are
 * dropped). A throw from `onMessage` fails the connection (INTERNAL).
 */
export async function fetchHeaders(
  conn: LeanImap,
  batches: UidBatch[],
  onMessage: (m: FetchedHeaders) => void,
  window = 8,
  items = FETCH_ITEMS,
): Promise<FetchOutcome | LeanFailure> {
  let messages = 0;
  let malformed = 0;
  let head = 0; // the oldest batch not yet complete
  const held = new Map<number, FetchedHeaders[]>();
  const release = (m: FetchedHeaders) => {
    messages++;
    onMessage(m);
  };
  const onUntagged = (r: ImapResponse) => {
    const m = readFetch(r);
    if (m === 'malformed') malformed++;
    else if (m !== 'other') {
      const i = batchOf(batches, m.uid);
      if (i <= head) release(m);
      else {
        const list = held.get(i);
        if (list) list.push(m);
        else held.set(i, [m]);
      }
    }
  };
  const send = (i: number) => conn.run(`UID FETCH ${batches[i]!.set} ${items}`, { onUntagged });
  const inFlight: Promise<Tagged>[] = [];
  let next = 0;
  while (next < batches.length && inFlight.length < window) inFlight.push(send(next++));
  while (inFlight.length > 0) {
    const answer = await inFlight.shift()!;
    if (!answer.ok) return answer;
    if (answer.status !== 'OK') return { ok: false, code: 'REFUSED', message: 'the server refused the FETCH' };
    head++;
    for (const m of held.get(head) ?? []) release(m);
    held.delete(head);
    if (next < batches.length) inFlight.push(send(next++));
  }
  return { ok: true, messages, malformed };
}

/** The batch a UID belongs to: the last whose `first` is not above it (0 below the first). */
function batchOf(batches: UidBatch[], uid: number): number {
  let lo = 0;
  let hi = batches.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (batches[mid]!.first <= uid) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const SP = 0x20;
const OPEN = 0x28;
const CLOSE = 0x29;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const TILDE = 0x7e;
const EMPTY = Buffer.alloc(0);

/**
 * `* <n> FETCH (...)` → the message, or 'other' for a response that is not one of ours,
 * or 'malformed' when it is a FETCH whose items cannot be read.
 */
export function readFetch(r: ImapResponse): FetchedHeaders | 'other' | 'malformed' {
  const t = r.texts[0]!;
  // "* " digits " FETCH (" — the word in any case (RFC 3501 §9: keywords are case-insensitive)
  if (t.length < 12 || t[0] !== 0x2a || t[1] !== SP) return 'other';
  let i = 2;
  while (i < t.length && t[i]! >= 0x30 && t[i]! <= 0x39) i++;
  if (i === 2 || t[i] !== SP || !word(t, i + 1, 'FETCH') || t[i + 6] !== SP || t[i + 7] !== OPEN) return 'other';
  const c: Cursor = { r, seg: 0, pos: i + 8, lit: 0 };
  let uid = -1;
  let seen = false;
  let headers: Buffer | null = null;
  for (;;) {
    const b = peek(c);
    if (b === CLOSE) break;
    if (b === -1) return 'malformed';
    if (b === SP) {
      c.pos++;
      continue;
    }
    const name = atomEnd(c);
    const cur = seg(c);
    if (name === c.pos) return 'malformed';
    if (cur[name] === LBRACKET && word(cur, c.pos, 'BODY') && name - c.pos === 4) {
      const close = cur.indexOf(RBRACKET, name);
      if (close < 0) return 'malformed';
      c.pos = close + 1;
      if (cur[c.pos] === 0x3c) c.pos = atomEnd(c); // "<origin>"
      if (cur[c.pos] !== SP) return 'malformed';
      c.pos++;
      const value = nstring(c);
      if (value === null) return 'malformed';
      headers = value;
    } else if (name - c.pos === 3 && word(cur, c.pos, 'UID') && cur[name] === SP) {
      c.pos = name + 1;
      const end = atomEnd(c);
      uid = number(cur, c.pos, end);
      if (uid < 1) return 'malformed';
      c.pos = end;
    } else if (name - c.pos === 5 && word(cur, c.pos, 'FLAGS') && cur[name] === SP && cur[name + 1] === OPEN) {
      const close = cur.indexOf(CLOSE, name);
      if (close < 0) return 'malformed';
      seen = hasSeen(cur, name + 2, close);
      c.pos = close + 1;
    } else {
      // any other item, e.g. MODSEQ (n), BINARY[1] ~{n}, BODY[1]<0> {n}: name, section, origin, value
      c.pos = cur[name] === LBRACKET ? cur.indexOf(RBRACKET, name) + 1 : name;
      if (c.pos === 0) return 'malformed';
      if (cur[c.pos] === 0x3c) c.pos = atomEnd(c);
      if (peek(c) !== SP) return 'malformed';
      c.pos++;
      if (!skipValue(c, 0)) return 'malformed';
    }
  }
  if (headers === null) return 'other'; // e.g. "* 5 FETCH (FLAGS (\Seen))" from another session
  if (uid < 1) return 'malformed'; // RFC 3501 §6.4.8: a UID FETCH answer always carries UID
  return { uid, seen, headers };
}

interface Cursor {
  r: ImapResponse;
  seg: number;
  pos: number;
  lit: number;
}

function seg(c: Cursor): Buffer {
  return c.r.texts[c.seg]!;
}

/** The byte at the cursor, -1 at the end of the response. */
function peek(c: Cursor): number {
  const t = seg(c);
  return c.pos < t.length ? t[c.pos]! : -1;
}

/** End of the atom at the cursor: up to SP, '(', ')', '[', or the end of the part. */
function atomEnd(c: Cursor): number {
  const t = seg(c);
  let i = c.pos;
  while (i < t.length) {
    const b = t[i]!;
    if (b === SP || b === OPEN || b === CLOSE || b === LBRACKET) break;
    i++;
  }
  return i;
}

/** NIL, a quoted string or a literal at the cursor, moved past it; null if none. */
function nstring(c: Cursor): Buffer | null {
  const t = seg(c);
  const b = peek(c);
  if (b === LBRACE || (b === TILDE && t[c.pos + 1] === LBRACE)) {
    // the part ends with this literal's {n} (or literal8's ~{n}); the literal and the next part follow
    const lit = c.r.literals[c.lit];
    if (lit === undefined || c.seg + 1 >= c.r.texts.length) return null;
    c.lit++;
    c.seg++;
    c.pos = 0;
    return lit;
  }
  if (b === QUOTE) {
    const bytes: number[] = [];
    for (let i = c.pos + 1; i < t.length; i++) {
      const x = t[i]!;
      if (x === QUOTE) {
        c.pos = i + 1;
        return Buffer.from(bytes);
      }
      if (x === BACKSLASH) i++;
      if (i < t.length) bytes.push(t[i]!);
    }
    return null;
  }
  if (word(t, c.pos, 'NIL')) {
    c.pos += 3;
    return EMPTY;
  }
  return null;
}

/** Skips one value: atom/number, NIL, quoted string, literal, or a (nested) list. */
function skipValue(c: Cursor, depth: number): boolean {
  if (depth > 32) return false;
  const b = peek(c);
  if (b === OPEN) {
    c.pos++;
    for (;;) {
      const x = peek(c);
      if (x === -1) return false;
      if (x === CLOSE) {
        c.pos++;
        return true;
      }
      if (x === SP) c.pos++;
      else if (!skipValue(c, depth + 1)) return false;
    }
  }
  if (b === QUOTE || b === LBRACE || (b === TILDE && seg(c)[c.pos + 1] === LBRACE)) return nstring(c) !== null;
  const end = atomEnd(c);
  if (end === c.pos) return false;
  c.pos = end;
  const t = seg(c);
  if (t[end] === LBRACKET) {
    // a section spec such as BODY[HEADER] inside an item we skip
    const close = t.indexOf(RBRACKET, end);
    if (close < 0) return false;
    c.pos = close + 1;
  }
  return true;
}

/** ASCII case-insensitive comparison of bytes at `at` with an upper-case word. */
function word(t: Buffer, at: number, w: string): boolean {
  if (at + w.length > t.length) return false;
  for (let k = 0; k < w.length; k++) if ((t[at + k]! & 0xdf) !== w.charCodeAt(k)) return false;
  return true;
}

function number(t: Buffer, from: number, to: number): number {
  if (to === from || to - from > 10) return -1;
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = t[i]! - 0x30;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n <= 0xffffffff ? n : -1;
}

/** RFC 3501 §2.3.2: flags are atoms compared case-insensitively; \Seen marks a read message. */
function hasSeen(t: Buffer, from: number, to: number): boolean {
  for (let i = from; i + 5 <= to; i++) {
    if (
      t[i] === BACKSLASH &&
      (i === from || t[i - 1] === SP) &&
      word(t, i + 1, 'SEEN') &&
      (i + 5 === to || t[i + 5] === SP)
    )
      return true;
  }
  return false;
}
