/**
 * A header block → the scan's fields, read exactly as postal-mime 4.0 reads a header section,
 * without the rest of postal-mime's machinery (MIME tree, body decoders, an async pipeline): a
 * few µs instead of ~60–100 µs per message. The scan calls this for every message.
 *
 * Exactly as postal-mime (postal-mime.ts `readLine`, mime-node.ts `feed` and `processHeaders`):
 * - lines end at LF; CR and LF bytes at the end of a line are dropped, a CR inside it is kept;
 * - a line that is empty after that ends the header section (nothing after it is read);
 * - each line is UTF-8 with U+FFFD for bad bytes and a BOM kept as a character. UTF-8 resyncs at
 *   every ASCII byte, so decoding the block at once and splitting at LF gives the same text;
 * - a line starting with SP or HTAB continues the field above it (the first line starts one);
 *   unfolding joins the lines as they are (the folding whitespace stays);
 * - key: the text before the first ':' (the whole line if none) trimmed of SP/HTAB, lower-cased
 *   with String#toLowerCase; value: the text after it with CR runs turned into one space,
 *   trimmed of SP/HTAB ('' when there is no ':').
 * header-split.test.ts holds this reading written plainly (splitHeaderFields), compares it with
 * postal-mime, and readScanFields with it, on generated and hostile blocks.
 */
import { isAscii } from 'node:buffer';

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
const CR = 13;
const SP = 32;
const HTAB = 9;

/** Trims SP and HTAB only (RFC 5322 WSP), as postal-mime does; not String#trim. */
export function trimWsp(str: string): string {
  let start = 0;
  let end = str.length;
  while (start < end && isWsp(str.charCodeAt(start))) start++;
  while (end > start && isWsp(str.charCodeAt(end - 1))) end--;
  return start === 0 && end === str.length ? str : str.slice(start, end);
}

function isWsp(c: number): boolean {
  return c === SP || c === HTAB;
}

/** What a scan reads: every value of the list, auth and DKIM-Signature fields, and the first From, Subject, Date and Message-ID. */
export interface ScanFields {
  from: string | undefined;
  subject: string | undefined;
  date: string | undefined;
  listUnsubscribe: string[];
  listUnsubscribePost: string[];
  listId: string[];
  authenticationResults: string[];
  messageId: string | undefined;
  dkimSignature: string[];
}

// The scan's field names, lower-case, by index: 0 from, 1 subject, 2 date, 3 list-unsubscribe,
// 4 list-unsubscribe-post, 5 list-id, 6 authentication-results, 7 message-id, 8 dkim-signature.
// Only U+212A (→ 'k') and U+0130 (→ 'i' + U+0307) lower-case into ASCII, and no name but
// dkim-signature has a 'k', so for the others an ASCII case-insensitive match is exactly
// `toLowerCase() ===`; dkim-signature is compared through toLowerCase itself.
const NAMES = [
  'from',
  'subject',
  'date',
  'list-unsubscribe',
  'list-unsubscribe-post',
  'list-id',
  'authentication-results',
  'message-id',
  'dkim-signature',
];

// Non-unicode /i matches ASCII letters only in both cases: no non-ASCII character folds into
// this name (ECMA-262 Canonicalize keeps a character ≥ 128 from mapping below 128).
const LIST_UNSUBSCRIBE = /list-unsubscribe/i;

/** Index in NAMES of the name in s[a, z), or -1. */
function nameIndex(s: string, a: number, z: number): number {
  switch (z - a) {
    case 4:
      return asciiEqualsLower(s, a, 'from') ? 0 : asciiEqualsLower(s, a, 'date') ? 2 : -1;
    case 7:
      return asciiEqualsLower(s, a, 'subject') ? 1 : asciiEqualsLower(s, a, 'list-id') ? 5 : -1;
    case 10:
      return asciiEqualsLower(s, a, 'message-id') ? 7 : -1;
    case 14:
      return s.slice(a, z).toLowerCase() === 'dkim-signature' ? 8 : -1;
    case 16:
      return asciiEqualsLower(s, a, 'list-unsubscribe') ? 3 : -1;
    case 21:
      return asciiEqualsLower(s, a, 'list-unsubscribe-post') ? 4 : -1;
    case 22:
      return asciiEqualsLower(s, a, 'authentication-results') ? 6 : -1;
    default:
      return -1;
  }
}

/** A fresh ScanFields; pass one to readScanFields to have it reused (its previous content is lost). */
export function emptyScanFields(): ScanFields {
  return {
    from: undefined,
    subject: undefined,
    date: undefined,
    listUnsubscribe: [],
    listUnsubscribePost: [],
    listId: [],
    authenticationResults: [],
    messageId: undefined,
    dkimSignature: [],
  };
}

/**
 * splitHeaderFields for the scan's fields only, with the same result (header-split.test.ts
 * compares them): no per-line strings, no lower-cased names, and values only for our fields.
 */
export function readScanFields(block: Uint8Array, reuse?: ScanFields): ScanFields;
/**
 * With `needListUnsubscribe`, null for a block that cannot hold a List-Unsubscribe field: its
 * text does not contain the name in any ASCII case (the only case folding nameIndex and
 * toLowerCase give this name: it has no 'k', and U+0130 lower-cases to two characters). Such
 * a message offers no unsubscribe method, so the scan skips it without reading its fields.
 */
export function readScanFields(
  block: Uint8Array,
  reuse: ScanFields | undefined,
  opts: { needListUnsubscribe: boolean },
): ScanFields | null;
export function readScanFields(
  block: Uint8Array,
  reuse?: ScanFields,
  opts?: { needListUnsubscribe: boolean },
): ScanFields | null {
  const b = Buffer.isBuffer(block) ? block : Buffer.from(block.buffer, block.byteOffset, block.byteLength);
  const s = isAscii(b) ? b.toString('latin1') : utf8.decode(b);
  if (opts?.needListUnsubscribe && !LIST_UNSUBSCRIBE.test(s)) return null;
  const out = reuse ?? emptyScanFields();
  if (reuse) {
    out.from = out.subject = out.date = out.messageId = undefined;
    // New arrays rather than `length = 0`: V8 truncates through a slow runtime path, and most
    // blocks leave most of these empty anyway.
    if (out.listUnsubscribe.length > 0) out.listUnsubscribe = [];
    if (out.listUnsubscribePost.length > 0) out.listUnsubscribePost = [];
    if (out.listId.length > 0) out.listId = [];
    if (out.authenticationResults.length > 0) out.authenticationResults = [];
    if (out.dkimSignature.length > 0) out.dkimSignature = [];
  }
  let fieldStart = -1; // first line of the current field
  let firstEnd = -1; // end of that line (CRs dropped)
  let folded = false; // the field has continuation lines
  let pos = 0;
  for (;;) {
    let end = pos;
    let next = pos;
    if (pos < s.length) {
      const nl = s.indexOf('\n', pos);
      next = nl < 0 ? s.length : nl + 1;
      end = nl < 0 ? s.length : nl;
      while (end > pos && s.charCodeAt(end - 1) === CR) end--;
    }
    const first = s.charCodeAt(pos);
    if (end > pos && fieldStart >= 0 && (first === SP || first === HTAB)) {
      folded = true;
    } else {
      if (fieldStart >= 0) take(s, fieldStart, firstEnd, folded ? pos : -1, out);
      if (end === pos) break; // an empty line or the end: the field section is over
      fieldStart = pos;
      firstEnd = end;
      folded = false;
    }
    pos = next;
  }
  return out;
}

/** One field: its first line is s[start, firstEnd); `stop` ends its continuation lines (-1: none). */
function take(s: string, start: number, firstEnd: number, stop: number, out: ScanFields): void {
  const colon = s.indexOf(':', start);
  let index: number;
  let raw: string;
  if (colon >= 0 && colon < firstEnd) {
    let a = start;
    let z = colon;
    while (a < z && isWsp(s.charCodeAt(a))) a++;
    while (z > a && isWsp(s.charCodeAt(z - 1))) z--;
    index = nameIndex(s, a, z);
    if (index < 0 || alreadySet(out, index)) return;
    raw = stop < 0 ? s.slice(colon + 1, firstEnd) : unfold(s, colon + 1, stop);
  } else {
    // No ':' on the first line (rare): the name is folded, or there is no ':' at all, which
    // postal-mime reads as a field named by the whole text, with an empty value.
    const unfolded = stop < 0 ? s.slice(start, firstEnd) : unfold(s, start, stop);
    const sep = unfolded.indexOf(':');
    index = NAMES.indexOf(trimWsp(sep < 0 ? unfolded : unfolded.slice(0, sep)).toLowerCase());
    if (index < 0 || alreadySet(out, index)) return;
    raw = sep < 0 ? '' : unfolded.slice(sep + 1);
  }
  const value = trimWsp(raw.indexOf('\r') < 0 ? raw : raw.replace(/[\r\n]+/g, ' '));
  if (index === 0) out.from = value;
  else if (index === 1) out.subject = value;
  else if (index === 2) out.date = value;
  else if (index === 3) out.listUnsubscribe.push(value);
  else if (index === 4) out.listUnsubscribePost.push(value);
  else if (index === 5) out.listId.push(value);
  else if (index === 6) out.authenticationResults.push(value);
  else if (index === 8) out.dkimSignature.push(value);
  else out.messageId = value;
}

/** From, Subject, Date and Message-ID count once: the first field wins, as postal-mime's `find` does. */
function alreadySet(out: ScanFields, index: number): boolean {
  switch (index) {
    case 0:
      return out.from !== undefined;
    case 1:
      return out.subject !== undefined;
    case 2:
      return out.date !== undefined;
    case 7:
      return out.messageId !== undefined;
    default:
      return false;
  }
}

/** s[from, stop) with every line end (CRs before an LF, and the LF) removed: the unfolded text. */
function unfold(s: string, from: number, stop: number): string {
  let v = '';
  let pos = from;
  while (pos < stop) {
    const nl = s.indexOf('\n', pos);
    const lineEnd = nl < 0 || nl >= stop ? stop : nl;
    let end = lineEnd;
    while (end > pos && s.charCodeAt(end - 1) === CR) end--;
    v += s.slice(pos, end);
    pos = lineEnd + 1;
  }
  return v;
}

function asciiEqualsLower(s: string, at: number, lower: string): boolean {
  for (let i = 0; i < lower.length; i++) {
    const c = s.charCodeAt(at + i);
    if ((c >= 0x41 && c <= 0x5a ? c | 0x20 : c) !== lower.charCodeAt(i)) return false;
  }
  return true;
}
