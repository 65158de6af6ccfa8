/**
 * One fetched header block → the fields the grouping needs.
 *
 * postal-mime does the RFC 5322 work (unfolding, keeping duplicate fields in order, RFC 2047
 * encoded words in From and Subject, the From address list); the list headers go through our
 * own strict parsers. The block comes from a stranger's mail, so this never throws: a block
 * postal-mime rejects yields a message with no From, no methods and unknown auth.
 *
 * postal-mime's parser is asynchronous, hence the Promise; `fromEmail` is the synchronous part.
 */
import PostalMime, { decodeWords, type Email } from 'postal-mime';
import { parseAuthResults } from './auth-results.ts';
import { cleanText, parseListId } from './list-id.ts';
import { parseListUnsubscribe } from './list-unsubscribe.ts';
import type { MessageMeta, ParsedMessage } from './types.ts';

/** The header fields this module reads from a parsed block (a subset of postal-mime's Email). */
export type HeaderFields = Pick<Email, 'headers'> & Partial<Pick<Email, 'from' | 'subject' | 'date'>>;

/** Only the fields the scan fetches are read; a block larger than this is cut (at a line end). */
export const MAX_HEADER_BLOCK = 256 * 1024;
const MAX_SUBJECT_LENGTH = 200;
const MAX_NAME_LENGTH = 200;

export async function parseMessage(meta: MessageMeta): Promise<ParsedMessage> {
  let email: HeaderFields;
  try {
    email = await PostalMime.parse(headerBlock(meta.headers));
  } catch {
    email = { headers: [] }; // postal-mime refuses some hostile input (limits); that is data, not a bug
  }
  return fromEmail(meta, email);
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
  const crlf = b.indexOf('\r\n\r\n');
  const lf = b.indexOf('\n\n');
  const ends = [crlf < 0 ? -1 : crlf + 2, lf < 0 ? -1 : lf + 1].filter((n) => n >= 0);
  if (ends.length > 0) return b.subarray(0, Math.min(...ends));
  if (buf.byteLength <= MAX_HEADER_BLOCK) return b;
  const lastLine = b.lastIndexOf('\n');
  return lastLine < 0 ? b.subarray(0, 0) : b.subarray(0, lastLine + 1);
}

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
