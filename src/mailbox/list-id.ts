/**
 * List-Id (RFC 2919) → the list identifier that groups a list's mail, and its display name.
 *
 *   List-Id: "Weekly News" <weekly.news.example.com>   → { id: 'weekly.news.example.com', name: 'Weekly News' }
 *   List-Id: weekly.news.example.com                   → { id: 'weekly.news.example.com', name: null }
 */
import { decodeWords } from 'postal-mime';

export interface ListId {
  /** lower-cased identifier (the part in angle brackets) */
  id: string;
  /** decoded phrase before the brackets, or null */
  name: string | null;
}

const MAX_VALUE_LENGTH = 8 * 1024;
const MAX_NAME_LENGTH = 200;
// RFC 2919 §2: list-id = list-label "." list-id-namespace, both dot-atom-text (RFC 5322 §3.2.3),
// at most 255 octets. The dot is required: a dotless id such as "<12345>" is not unique across
// senders, and grouping two strangers' mail under it would be worse than grouping by From.
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LIST_ID = new RegExp(`^${ATEXT}(?:\\.${ATEXT})+$`);

export function parseListId(value: string): ListId | null {
  if (value.length > MAX_VALUE_LENGTH) return null;
  // The phrase may itself contain '<' inside quotes, so the identifier is the last bracketed part.
  const open = value.lastIndexOf('<');
  if (open < 0) {
    // The bare form (no brackets) is the obsolete syntax RFC 2919 asks readers to tolerate.
    const bare = value.trim();
    return validId(bare) ? { id: bare.toLowerCase(), name: null } : null;
  }
  const close = value.indexOf('>', open);
  if (close < 0) return null;
  const id = value.slice(open + 1, close).trim();
  if (!validId(id)) return null;
  // List identifiers are domain-like and compared case-insensitively, so one list that changes
  // case between mailings stays one subscription.
  return { id: id.toLowerCase(), name: phrase(value.slice(0, open)) };
}

function validId(id: string): boolean {
  return id.length <= 255 && LIST_ID.test(id);
}

/** RFC 5322 §3.2.5 phrase: RFC 2047 encoded words decoded, quotes and quoted-pairs removed. */
function phrase(raw: string): string | null {
  let s = decodeWords(raw.trim());
  if (s.startsWith('"') && s.endsWith('"') && s.length >= 2) s = s.slice(1, -1).replace(/\\(.)/g, '$1');
  return cleanText(s, MAX_NAME_LENGTH);
}

const CLEAN = /^(?:[!-~]+ )*[!-~]+$/;

/** Display text: controls become spaces, runs of whitespace collapse, capped by code points. */
export function cleanText(s: string, max: number): string | null {
  // Already clean (printable ASCII words with single spaces, short enough): nothing would change.
  if (s.length <= max && CLEAN.test(s)) return s;
  const flat = s
    .replace(/\p{Cc}/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  // A code point is at most two UTF-16 units, so slicing first bounds the work on huge input.
  const capped = Array.from(flat.slice(0, max * 2))
    .slice(0, max)
    .join('')
    .trim();
  return capped === '' ? null : capped;
}
