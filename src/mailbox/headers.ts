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
import { dateMs } from './date.ts';
import { emptyScanFields, readScanFields } from './header-split.ts';
import { cleanText, type ListId, parseListId } from './list-id.ts';
import { parseListUnsubscribe } from './list-unsubscribe.ts';
import { type OneClickWithheld, oneClickWithheld } from './one-click-evidence.ts';
import type { MessageMeta, OneClickEvidence, ParsedMessage, UnsubscribeMethods } from './types.ts';

/** The header fields this module reads from a parsed block (a subset of postal-mime's Email). */
export type HeaderFields = Pick<Email, 'headers'> & Partial<Pick<Email, 'from' | 'subject' | 'date'>>;

/** Only the fields the scan fetches are read; a block larger than this is cut (at a line end). */
export const MAX_HEADER_BLOCK = 256 * 1024;
const MAX_SUBJECT_LENGTH = 200;
const MAX_NAME_LENGTH = 200;
const MEMO_LISTS = 4096; // lists remembered per scan (then it starts over)
const MEMO_SUBJECTS = 6; // raw Subject texts remembered per list

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
 *
 * With `deferEvidence` (the scan's tally), a message offering one-click carries its DKIM
 * evidence unread (`oneClickEvidence`) and `methods.one_click` is only a candidate: the grouping
 * checks it for the newest message of each list only, which is the one it uses (one check per
 * list and report instead of one per message; docs/benchmarks.md).
 */
export function createHeaderParser(opts: { memo: boolean; deferEvidence?: boolean } = { memo: true }): HeaderParser {
  // Per scan, per list (raw List-Id text, or raw From text without one): the results computed
  // from that list's last raw values, reused only when the raw text is identical (===). A list's
  // From, List-Id and often its List-Unsubscribe repeat in every message; one Map lookup per
  // message replaces a parse of each.
  const byListId = new Map<string, ListCache>();
  const byFrom = new Map<string, ListCache>();
  const fields = emptyScanFields();

  return (meta, o) => {
    try {
      return parse(meta, o?.onlyWithMethods ?? false);
    } catch {
      // As parseMessageReference: a block postal-mime's decoders refuse counts as an empty one.
      return o?.onlyWithMethods ? null : fromEmail(meta, { headers: [] });
    }
  };

  function parse(meta: MessageMeta, onlyWithMethods: boolean): ParsedMessage | null {
    // headerBlock only matters for a block over MAX_HEADER_BLOCK: below that, reading stops at
    // the first empty line, which is where headerBlock would cut.
    const h = meta.headers;
    // the fields object is reused: nothing below keeps its arrays past this call
    const f = readScanFields(h.byteLength > MAX_HEADER_BLOCK ? headerBlock(h) : h, fields, {
      needListUnsubscribe: onlyWithMethods,
    });
    if (f === null) return null; // no List-Unsubscribe field: no method (onlyWithMethods only)
    const ids = f.listId;
    const idKey = ids.length === 0 ? null : ids.length === 1 ? ids[0]! : ids.join('\n'); // values never hold LF
    const from = f.from;
    const c = opts.memo ? cacheFor(idKey === null ? byFrom : byListId, idKey ?? from ?? '', ids) : null;
    const unsub = f.listUnsubscribe;
    const post = f.listUnsubscribePost;
    let methods: UnsubscribeMethods;
    if (unsub.length === 0) methods = { one_click: null, http: [], mailto: [] };
    else if (c && unsub.length === 1 && post.length <= 1) {
      const postText = post.length === 0 ? null : post[0]!;
      if (c.methods === null || c.unsub !== unsub[0] || c.post !== postText) {
        c.unsub = unsub[0]!;
        c.post = postText;
        c.methods = listUnsubscribe(unsub, post);
        c.withoutOneClick = null;
      }
      methods = c.methods;
    } else methods = listUnsubscribe(unsub, post);
    if (onlyWithMethods && !methods.one_click && methods.http.length === 0 && methods.mailto.length === 0) return null;
    const listId = idKey === null ? null : c ? c.listId : firstListId(ids);
    let sent: ParsedMessage['from'] = null;
    if (from && c) {
      if (c.fromText !== from) {
        c.fromText = from;
        c.from = sender(addressParser(from)[0]);
      }
      sent = c.from;
    } else if (from) sent = sender(addressParser(from)[0]);
    let withheld: OneClickWithheld | null = null;
    let evidence: OneClickEvidence | undefined;
    if (methods.one_click !== null && opts.deferEvidence) {
      // copies: the field arrays are reused for the next message
      evidence = {
        authResults: [...f.authenticationResults],
        dkimSignatures: [...f.dkimSignature],
        fromDomain: domainOf(sent),
      };
    } else if (methods.one_click !== null) {
      withheld = oneClickWithheld(f.authenticationResults, f.dkimSignature, domainOf(sent));
      if (withheld !== null) {
        if (c && c.methods === methods) methods = c.withoutOneClick ??= { ...methods, one_click: null };
        else methods = { ...methods, one_click: null };
      }
    }
    const ms = f.date === undefined ? Number.NaN : dateMs(f.date);
    return {
      uid: meta.uid,
      mailbox: meta.mailbox,
      junk: meta.junk,
      seen: meta.seen,
      from: sent,
      listId: listId?.id ?? null,
      listName: listId?.name ?? null,
      methods,
      oneClickWithheld: withheld,
      ...(evidence ? { oneClickEvidence: evidence } : {}),
      // postal-mime's Date is ISO for a parseable value, else the raw text, which date() reads the same way
      date: Number.isNaN(ms) ? null : new Date(ms),
      // postal-mime sets subject only for a non-empty first Subject field
      subject: f.subject ? (c ? cachedSubject(c, f.subject) : subjectText(f.subject)) : null,
      auth: parseAuthResults(f.authenticationResults),
      messageId: messageIdOf(f.messageId),
    };
  }
}

interface ListCache {
  listId: ListId | null;
  unsub: string | null;
  post: string | null;
  methods: UnsubscribeMethods | null;
  /** `methods` with one_click dropped, made the first time a message's evidence withholds it */
  withoutOneClick: UnsubscribeMethods | null;
  fromText: string | null;
  from: ParsedMessage['from'];
  /** raw Subject texts and their results, most recent first */
  subjects: { text: string; value: string | null }[];
}

function cacheFor(map: Map<string, ListCache>, key: string, ids: string[]): ListCache {
  let c = map.get(key);
  if (c === undefined) {
    if (map.size >= MEMO_LISTS) map.clear();
    c = {
      listId: ids.length === 0 ? null : firstListId(ids),
      unsub: null,
      post: null,
      methods: null,
      withoutOneClick: null,
      fromText: null,
      from: null,
      subjects: [],
    };
    map.set(key, c);
  }
  return c;
}

/** Every List-Unsubscribe field is passed on: the parser decides what duplicates mean. */
function listUnsubscribe(unsub: string[], post: string[]): UnsubscribeMethods {
  return parseListUnsubscribe(unsub.map(decodeWholeValue), post);
}

function subjectText(raw: string): string | null {
  return cleanText(raw.includes('=?') ? decodeWords(raw) : raw, MAX_SUBJECT_LENGTH);
}

function cachedSubject(c: ListCache, raw: string): string | null {
  // Without an encoded word the work is one regex test (cleanText's fast path): cheaper than
  // comparing the text with the remembered ones.
  if (!raw.includes('=?')) return cleanText(raw, MAX_SUBJECT_LENGTH);
  for (const s of c.subjects) if (s.text === raw) return s.value;
  const value = subjectText(raw);
  c.subjects.unshift({ text: raw, value });
  if (c.subjects.length > MEMO_SUBJECTS) c.subjects.pop();
  return value;
}

export function fromEmail(meta: MessageMeta, email: HeaderFields): ParsedMessage {
  const all = (key: string) => email.headers.filter((h) => h.key === key).map((h) => h.value);
  const listId = firstListId(all('list-id'));
  const from = sender(email.from);
  // Every List-Unsubscribe field is passed on: the parser decides what duplicates mean.
  let methods = parseListUnsubscribe(all('list-unsubscribe').map(decodeWholeValue), all('list-unsubscribe-post'));
  const withheld =
    methods.one_click === null
      ? null
      : oneClickWithheld(all('authentication-results'), all('dkim-signature'), domainOf(from));
  if (withheld !== null) methods = { ...methods, one_click: null };
  return {
    uid: meta.uid,
    mailbox: meta.mailbox,
    junk: meta.junk,
    seen: meta.seen,
    from,
    listId: listId?.id ?? null,
    listName: listId?.name ?? null,
    methods,
    oneClickWithheld: withheld,
    date: date(email.date),
    subject: email.subject === undefined ? null : cleanText(email.subject, MAX_SUBJECT_LENGTH),
    auth: parseAuthResults(all('authentication-results')),
    messageId: messageIdOf(all('message-id')[0]),
  };
}

/**
 * RFC 5322 §3.6.4: the msg-id between the first pair of angle brackets; a value without them
 * (seen in the wild) is taken whole. Bounded by the line length limit of §2.1.1.
 */
function messageIdOf(value: string | undefined): string | null {
  if (value === undefined) return null;
  const open = value.indexOf('<');
  const close = open < 0 ? -1 : value.indexOf('>', open + 1);
  const id = (close > open + 1 ? value.slice(open + 1, close) : value).trim();
  return id.length > 0 && id.length <= 998 ? id : null;
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
 * field. Only a value that starts with an encoded word and has no '<' is decoded:
 * a normal value is left alone so a URL containing "=?" is never altered.
 */
function decodeWholeValue(value: string): string {
  const t = value.trim();
  return t.startsWith('=?') && !t.includes('<') ? decodeWords(t) : value;
}

function domainOf(from: ParsedMessage['from']): string | null {
  return from === null ? null : from.address.slice(from.address.lastIndexOf('@') + 1);
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
