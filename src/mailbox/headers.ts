/**
 * One fetched header block → the fields the grouping needs.
 *
 * The RFC 5322 work (unfolding, keeping duplicate fields in order, RFC 2047 encoded words in From
 * and Subject, the From address list) follows postal-mime exactly; the list headers go through
 * our own strict parsers. The block comes from a stranger's mail, so this never throws.
 *
 * Two paths give the same result (header-split.test.ts compares them on every generated and
 * hostile block):
 * - `parseMessageReference`: postal-mime's full parser (async, ~60–100 µs per block);
 * - `createHeaderParser` / `parseMessage`: header-split.ts reads the fields as postal-mime does,
 *   and postal-mime's decoders run only where they change something: `decodeWords` when a
 *   Subject contains "=?" (without one it returns its input), `addressParser` for From. A scan's
 *   parser memoizes the per-value work (the same From, List-Id, Subject and list headers recur
 *   across a list's mail) for that scan only, bounded in entries and key length.
 */
import PostalMime, { addressParser, decodeWords, type Email } from 'postal-mime';
import { parseAuthResults } from './auth-results.ts';
import { readScanFields } from './header-split.ts';
import { cleanText, parseListId } from './list-id.ts';
import { parseListUnsubscribe } from './list-unsubscribe.ts';
import type { MessageMeta, ParsedMessage, UnsubscribeMethods } from './types.ts';

/** The header fields this module reads from a parsed block (a subset of postal-mime's Email). */
export type HeaderFields = Pick<Email, 'headers'> & Partial<Pick<Email, 'from' | 'subject' | 'date'>>;

/** Only the fields the scan fetches are read; a block larger than this is cut (at a line end). */
export const MAX_HEADER_BLOCK = 256 * 1024;
const MAX_SUBJECT_LENGTH = 200;
const MAX_NAME_LENGTH = 200;
const MEMO_ENTRIES = 4096;
const MEMO_KEY_LENGTH = 2048;

export async function parseMessage(meta: MessageMeta): Promise<ParsedMessage> {
  return createHeaderParser({ memo: false })(meta)!;
}

/** The same result through postal-mime's whole parser: the reference the fast path is held to. */
export async function parseMessageReference(meta: MessageMeta): Promise<ParsedMessage> {
  let email: HeaderFields;
  try {
    email = await PostalMime.parse(headerBlock(meta.headers));
  } catch {
    email = { headers: [] }; // postal-mime refuses some hostile input (limits); that is data, not a bug
  }
  return fromEmail(meta, email);
}

export type HeaderParser = (meta: MessageMeta, opts?: { onlyWithMethods?: boolean }) => ParsedMessage | null;

/**
 * A synchronous parser for one scan. With `onlyWithMethods`, a message offering no usable
 * unsubscribe method comes back as null before anything else is parsed: the grouping ignores
 * such a message whatever its other fields say. Results may share objects (from, methods)
 * between messages; treat them as read-only.
 */
export function createHeaderParser(opts: { memo: boolean } = { memo: true }): HeaderParser {
  const fromMemo = new Memo<ParsedMessage['from']>(opts.memo);
  const subjectMemo = new Memo<string | null>(opts.memo);
  const listIdMemo = new Memo<ReturnType<typeof firstListId>>(opts.memo);
  // List-Unsubscribe → methods, one cache per List-Unsubscribe-Post value ('' for none)
  const methodsMemo = new Map<string, Memo<UnsubscribeMethods>>();

  return (meta, o) => {
    try {
      return parse(meta, o?.onlyWithMethods ?? false);
    } catch {
      // As parseMessageReference: a block postal-mime's decoders refuse counts as an empty one.
      return o?.onlyWithMethods ? null : fromEmail(meta, { headers: [] });
    }
  };

  /** Every List-Unsubscribe field is passed on: the parser decides what duplicates mean. */
  function methodsOf(unsub: string[], post: string[]): UnsubscribeMethods {
    if (unsub.length !== 1 || post.length > 1) return parseListUnsubscribe(unsub.map(decodeWholeValue), post);
    const postKey = post[0] ?? '';
    let cache = methodsMemo.get(postKey);
    if (!cache) {
      cache = new Memo(opts.memo && methodsMemo.size < 16);
      methodsMemo.set(postKey, cache);
    }
    return cache.get(unsub[0]!) ?? cache.set(unsub[0]!, parseListUnsubscribe([decodeWholeValue(unsub[0]!)], post));
  }

  function parse(meta: MessageMeta, onlyWithMethods: boolean): ParsedMessage | null {
    // headerBlock only matters for a block over MAX_HEADER_BLOCK: below that, reading stops at
    // the first empty line, which is where headerBlock would cut.
    const h = meta.headers;
    const f = readScanFields(h.byteLength > MAX_HEADER_BLOCK ? headerBlock(h) : h);
    const unsub = f.listUnsubscribe;
    const methods = unsub.length === 0 ? NO_METHODS : methodsOf(unsub, f.listUnsubscribePost);
    if (onlyWithMethods && !methods.one_click && methods.http.length === 0 && methods.mailto.length === 0) return null;
    const ids = f.listId;
    const idKey = ids.length === 1 ? ids[0]! : ids.join('\n'); // values never hold LF
    const listId = ids.length === 0 ? null : (listIdMemo.get(idKey) ?? listIdMemo.set(idKey, firstListId(ids)));
    const from = f.from;
    const subject = f.subject;
    const d = f.date === undefined ? null : new Date(f.date);
    return {
      uid: meta.uid,
      mailbox: meta.mailbox,
      junk: meta.junk,
      seen: meta.seen,
      from: from ? (fromMemo.get(from) ?? fromMemo.set(from, sender(addressParser(from)[0]))) : null,
      listId: listId?.id ?? null,
      listName: listId?.name ?? null,
      methods: unsub.length === 0 ? { one_click: null, http: [], mailto: [] } : methods,
      // postal-mime's Date is ISO for a parseable value, else the raw text, which date() reads the same way
      date: d === null || Number.isNaN(d.getTime()) ? null : d,
      // postal-mime sets subject only for a non-empty first Subject field
      subject: subject
        ? (subjectMemo.get(subject) ??
          subjectMemo.set(
            subject,
            cleanText(subject.includes('=?') ? decodeWords(subject) : subject, MAX_SUBJECT_LENGTH),
          ))
        : null,
      auth: parseAuthResults(f.authenticationResults),
    };
  }
}

const NO_METHODS: UnsubscribeMethods = Object.freeze({ one_click: null, http: [], mailto: [] });

/**
 * A bounded per-scan cache of a pure function's results, keyed by the input text. Cleared when
 * full; keys over MEMO_KEY_LENGTH are not kept. `get` gives undefined on a miss (results are
 * never undefined; null is a result).
 */
class Memo<T> {
  readonly #map = new Map<string, T>();
  readonly #on: boolean;
  constructor(on: boolean) {
    this.#on = on;
  }
  get(key: string): T | undefined {
    return this.#on ? this.#map.get(key) : undefined;
  }
  set(key: string, value: T): T {
    if (this.#on && key.length <= MEMO_KEY_LENGTH) {
      if (this.#map.size >= MEMO_ENTRIES) this.#map.clear();
      this.#map.set(key, value);
    }
    return value;
  }
}

export function fromEmail(meta: MessageMeta, email: HeaderFields): ParsedMessage {
  const all = (key: string) => email.headers.filter((h) => h.key === key).map((h) => h.value);
  const listId = firstListId(all('list-id'));
  return {
    uid: meta.uid,
    mailbox: meta.mailbox,
    junk: meta.junk,
    seen: meta.seen,
    from: sender(email.from),
    listId: listId?.id ?? null,
    listName: listId?.name ?? null,
    // Every List-Unsubscribe field is passed on: the parser decides what duplicates mean.
    methods: parseListUnsubscribe(all('list-unsubscribe').map(decodeWholeValue), all('list-unsubscribe-post')),
    date: date(email.date),
    subject: email.subject === undefined ? null : cleanText(email.subject, MAX_SUBJECT_LENGTH),
    auth: parseAuthResults(all('authentication-results')),
  };
}

/**
 * The header section only, bounded. A block is cut at the first empty line (RFC 5322 §2.1: the
 * body follows it, and we never parse a body), and a huge block at its last line end before
 * MAX_HEADER_BLOCK, so postal-mime never sees more than that.
 */
export function headerBlock(buf: Uint8Array): Uint8Array {
  const b = Buffer.from(buf.buffer, buf.byteOffset, Math.min(buf.byteLength, MAX_HEADER_BLOCK));
  const crlf = b.indexOf(CRLFCRLF);
  const lf = b.indexOf(LFLF);
  const ends = [crlf < 0 ? -1 : crlf + 2, lf < 0 ? -1 : lf + 1].filter((n) => n >= 0);
  if (ends.length > 0) return b.subarray(0, Math.min(...ends));
  if (buf.byteLength <= MAX_HEADER_BLOCK) return b;
  const lastLine = b.lastIndexOf('\n');
  return lastLine < 0 ? b.subarray(0, 0) : b.subarray(0, lastLine + 1);
}

const CRLFCRLF = Buffer.from('\r\n\r\n');
const LFLF = Buffer.from('\n\n');

function firstListId(values: string[]) {
  // RFC 2919 §3 allows one List-Id; with several, the first parseable one is used.
  for (const v of values) {
    const id = parseListId(v);
    if (id) return id;
  }
  return null;
}

/**
 * RFC 2047 §5 does not allow encoded words in a URI list, yet some senders encode the whole
 * field (research §4.3). Only a value that starts with an encoded word and has no '<' is decoded:
 * a normal value is left alone so a URL containing "=?" is never altered.
 */
function decodeWholeValue(value: string): string {
  const t = value.trim();
  return t.startsWith('=?') && !t.includes('<') ? decodeWords(t) : value;
}

function sender(from: HeaderFields['from']): ParsedMessage['from'] {
  // RFC 5322 §3.6.2 allows a group or several mailboxes in From; the first mailbox is the sender.
  const box = from?.group ? from.group[0] : from;
  const address = box?.address?.trim() ?? '';
  // Only something address-shaped can be a grouping key; anything else counts as no From.
  if (address.length > 254 || !/^[^\s@<>()",;]+@[^\s@<>()",;]+\.[^\s@<>()",;]+$/.test(address)) return null;
  return { name: cleanText(box?.name ?? '', MAX_NAME_LENGTH) ?? '', address };
}

function date(value: string | undefined): Date | null {
  if (!value) return null;
  const d = new Date(value); // postal-mime gives ISO 8601 for a parseable Date, else the raw text
  return Number.isNaN(d.getTime()) ? null : d;
}
