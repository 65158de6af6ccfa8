/**
 * List-Unsubscribe (RFC 2369) and List-Unsubscribe-Post (RFC 8058) → the methods optout may use.
 *
 * Every byte here was chosen by whoever sent the mail, so the parser is strict about what it
 * accepts and never throws: a malformed item is dropped, never "repaired" into something the
 * sender did not write. docs/unsubscribe.md says what is used and why.
 */
import { domainToASCII } from 'node:url';
import type { MailtoMethod, UnsubscribeMethods } from './types.ts';

/** Longer header values are ignored outright: no legitimate list needs 8 KB of URIs. */
export const MAX_VALUE_LENGTH = 8 * 1024;
/** At most this many distinct URIs are kept per message. */
export const MAX_URIS = 10;
/** Per URI; long enough for ESP tokens (JWTs run to ~1.5 KB), short enough to bound work. */
export const MAX_URI_LENGTH = 4096;
// RFC 5322 §2.1.1 caps a header line at 998 octets; a subject longer than that cannot be sent.
const MAX_SUBJECT_BYTES = 998;
const MAX_BODY_BYTES = 16 * 1024;

export function parseListUnsubscribe(values: string[], postValues: string[]): UnsubscribeMethods {
  const http: string[] = [];
  const mailto: MailtoMethod[] = [];
  for (const value of values) {
    if (value.length > MAX_VALUE_LENGTH) continue;
    for (const uri of extractUris(value)) {
      if (http.length + mailto.length >= MAX_URIS) break;
      const c = classifyUri(uri);
      if (c?.kind === 'http' && !http.includes(c.uri)) http.push(c.uri);
      if (c?.kind === 'mailto' && !mailto.some((m) => m.uri === c.method.uri)) mailto.push(c.method);
    }
  }
  // RFC 8058 §3.1: one-click needs the exact Post value and an HTTPS URI (http: never qualifies;
  // a Post header beside only a mailto gives no one-click). With several List-Unsubscribe fields
  // we cannot tell which one the sender's DKIM signature covers (a relay can prepend one), so
  // one-click is withheld and the URIs stay available as links and mailto.
  const oneClick = values.length === 1 && hasOneClickPost(postValues) ? (http.find(isHttps) ?? null) : null;
  return { one_click: oneClick, http, mailto };
}

/** RFC 8058 §3.1 value, compared after trimming and case-insensitively. */
export function hasOneClickPost(postValues: string[]): boolean {
  // The exact RFC 8058 spelling needs no trimming or lower-casing (the common case, per message).
  return postValues.some(
    (v) => v === 'List-Unsubscribe=One-Click' || v.trim().toLowerCase() === 'list-unsubscribe=one-click',
  );
}

function isHttps(uri: string): boolean {
  return /^https:/i.test(uri);
}

/**
 * The URI strings of one List-Unsubscribe value, unvalidated, in header order.
 * RFC 2369 §2: a comma-separated list of `<URL>`s with whitespace and comments between them;
 * the brackets are found first, so commas inside a URL stay part of it.
 */
export function extractUris(value: string): string[] {
  let i = skipCfws(value, 0);
  if (i >= value.length) return [];
  // RFC 2369 §2 rule 1 says to ignore a field that does not start with '<'. Mail clients accept
  // a field that is exactly one URI, and so do we (docs/websocket.md), but only https or mailto.
  if (value[i] !== '<') return value.includes('<') || value.includes('>') ? [] : bareUri(value.trim());
  const out: string[] = [];
  while (i < value.length && value[i] === '<') {
    const close = value.indexOf('>', i + 1);
    if (close < 0) break; // unterminated '<': nothing after it can be trusted
    // RFC 2369 §2: "internal whitespace being ignored"; this is also what header folding leaves.
    const inner = value.slice(i + 1, close).replace(/[ \t\r\n]+/g, '');
    if (inner.includes('<')) break; // nested brackets: no URI contains '<' (RFC 3986 §2)
    out.push(inner);
    i = skipCfws(value, close + 1);
    // RFC 2369 §2 rule 2: text after a bracketed URL ends the field unless a comma comes first.
    if (value[i] !== ',') break;
    while (value[i] === ',') i = skipCfws(value, i + 1); // empty items (",,") are skipped
    // RFC 2369 §2 rule 3: an item that is not bracketed ends the field (the loop condition).
  }
  return out;
}

function bareUri(trimmed: string): string[] {
  if (!/^(https:\/\/|mailto:)/i.test(trimmed)) return [];
  // Two bare URIs glued by a comma would otherwise parse as one URL with a comma in it.
  if (/,\s*[a-z][a-z0-9+.-]*:/i.test(trimmed)) return [];
  return [trimmed]; // whitespace inside is refused by classifyUri
}

/** Skip whitespace and RFC 5322 §3.2.2 comments (nested, with quoted-pairs) from index i. */
function skipCfws(s: string, i: number): number {
  while (i < s.length) {
    const c = s[i];
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
      i++;
    } else if (c === '(') {
      let depth = 0;
      for (; i < s.length; i++) {
        if (s[i] === '\\') i++;
        else if (s[i] === '(') depth++;
        else if (s[i] === ')' && --depth === 0) break;
      }
      i++; // past ')'; an unterminated comment runs to the end
    } else {
      break;
    }
  }
  return i;
}

export type ClassifiedUri = { kind: 'http'; uri: string; https: boolean } | { kind: 'mailto'; method: MailtoMethod };

/**
 * Accept only http(s) and mailto URIs that are well formed; everything else is null. The scheme
 * comes back lower-cased (RFC 3986 §3.1: schemes are case-insensitive, lower case is canonical)
 * and an internationalised host in its A-label form (asciiHosts).
 */
export function classifyUri(written: string): ClassifiedUri | null {
  if (written.length === 0 || written.length > MAX_URI_LENGTH) return null;
  // RFC 3986 §2: a URI is printable ASCII. Spaces, controls (NUL, DEL…) and raw non-ASCII outside
  // a host mean a broken or hostile header, not a link to open.
  const ascii = PRINTABLE.test(written) ? written : asciiHosts(written);
  if (ascii === null) return null;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(ascii)?.[1]?.toLowerCase();
  if (scheme === undefined) return null;
  const uri = scheme + ascii.slice(scheme.length);
  if (scheme === 'mailto') {
    const method = parseMailto(uri);
    return method ? { kind: 'mailto', method } : null;
  }
  if (scheme !== 'http' && scheme !== 'https') return null; // javascript:, data:, file:, ftp:…
  // RFC 9110 §4.2: http(s) URIs carry an authority ("//host"); WHATWG URL would let `https:x` pass.
  if (!uri.startsWith('//', scheme.length + 1)) return null;
  if (plainAuthority(uri)) return { kind: 'http', uri, https: scheme === 'https' };
  const url = URL.parse(uri);
  // Credentials in an unsubscribe URL are never legitimate (RFC 3986 §3.2.1 deprecates them).
  if (!url || url.hostname === '' || url.username !== '' || url.password !== '') return null;
  // A percent-encoded host (RFC 3986 §3.2.2) is one more way to write an IDN: its A-label form too.
  const start = scheme.length + 3;
  const end = uri.slice(start).search(/[/?#]|$/) + start;
  const decoded = uri.slice(start, end).includes('%') ? `${uri.slice(0, start)}${url.host}${uri.slice(end)}` : uri;
  return { kind: 'http', uri: decoded, https: scheme === 'https' };
}

const PRINTABLE = /^[\x21-\x7e]+$/;
// An IRI (RFC 3987) whose only non-ASCII text is in the host of an http(s) URI or in the domain
// of a mailto address; the rest must already be printable ASCII.
const IRI_HTTP = /^(https?:\/\/)([^/?#@\s]+)([/?#][\x21-\x7e]*)?$/i;
const IRI_MAILTO = /^(mailto:[\x21-\x3f\x41-\x7e]+@)([^?#@,\s]+)(\?[\x21-\x7e]*)?$/i;

/**
 * RFC 3987 §3.1: an IRI becomes a URI by converting its host to an IDNA A-label ("xn--…",
 * RFC 5890 §2.3.2.1); RFC 6068 §2 says the same of a mailto domain. Senders write such hosts raw,
 * and mail clients convert them, so we do too. Non-ASCII anywhere else, a control or space
 * character, or a host IDNA refuses → null.
 */
function asciiHosts(iri: string): string | null {
  const m = IRI_HTTP.exec(iri) ?? IRI_MAILTO.exec(iri);
  if (m === null || /[\p{Cc}\p{Cf}\p{Z}]/u.test(m[2]!)) return null;
  const colon = m[1]!.startsWith('mailto') ? -1 : m[2]!.lastIndexOf(':');
  const host = colon < 0 ? m[2]! : m[2]!.slice(0, colon);
  const port = colon < 0 ? '' : m[2]!.slice(colon);
  const a = domainToASCII(host);
  if (a === '' || !PRINTABLE.test(port || 'x')) return null;
  return `${m[1]}${a}${port}${m[3] ?? ''}`;
}

// http(s)://, a DNS name of letters, digits and hyphens in non-empty labels, an optional port,
// then the end or '/', '?', '#'.
const PLAIN_AUTHORITY = /^https?:\/\/([a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(\d{1,5}))?(?:[/?#]|$)/i;

/**
 * True when a printable-ASCII http(s) URI certainly parses (WHATWG URL) with a host and no
 * credentials, so URL.parse can be skipped; it runs for every List-Unsubscribe URI a scan meets,
 * and per-message tokens defeat any cache. Such an authority cannot fail: path, query and
 * fragment never make parsing fail, the host needs no IDNA work (no "xn--" label), and its
 * last label is not a number (which would make it an IPv4 address to validate). Anything else
 * is left to URL.parse (list-unsubscribe.fast.test.ts compares the two).
 */
export function plainAuthority(uri: string): boolean {
  const m = PLAIN_AUTHORITY.exec(uri);
  if (!m) return false;
  const host = m[1]!;
  if (m[2] !== undefined && Number(m[2]) > 65535) return false;
  return !/(?:^|\.)xn--/i.test(host) && !/(?:^|\.)(?:\d+|0x[0-9a-f]*)$/i.test(host);
}

/**
 * RFC 6068 mailto → one recipient plus optional subject and body, or null when the method must
 * be refused. Refused: several recipients in the path, any `to`/`cc`/`bcc` hfield (honouring them
 * would let a sender make the user mail third parties; dropping them would send something other
 * than what the URI asks), bad percent-escapes, control characters in the subject.
 */
export function parseMailto(uri: string): MailtoMethod | null {
  if (uri.length > MAX_URI_LENGTH || !/^mailto:[\x21-\x7e]*$/i.test(uri)) return null;
  const rest = uri.slice('mailto:'.length);
  if (rest.includes('#')) return null; // RFC 6068 §2 has no fragment; '#' must be %23
  const q = rest.indexOf('?');
  const to = aLabelDomain(percentDecode(q < 0 ? rest : rest.slice(0, q)));
  // RFC 6068 §2: the path is a comma-separated address list; we need exactly one address.
  if (to === null || to.includes(',') || !isMailAddress(to)) return null;
  let subject: string | null = null;
  let body: string | null = null;
  // RFC 6068 §2: hfields are "name=value" joined by '&'; names are case-insensitive.
  for (const field of q < 0 ? [] : rest.slice(q + 1).split('&')) {
    if (field === '') continue;
    const eq = field.indexOf('=');
    const name = percentDecode(eq < 0 ? field : field.slice(0, eq))?.toLowerCase();
    const value = percentDecode(eq < 0 ? '' : field.slice(eq + 1));
    if (name == null || value === null) return null;
    if (name === 'to' || name === 'cc' || name === 'bcc') return null;
    if (name === 'subject' && subject === null) {
      // A CR/LF here would inject header lines into the mail we send.
      if (/\p{Cc}/u.test(value) || Buffer.byteLength(value) > MAX_SUBJECT_BYTES) return null;
      subject = value;
    } else if (name === 'body' && body === null) {
      // RFC 6068 §2: line breaks in a body are %0D%0A; other controls have no business there.
      if (/[^\P{Cc}\r\n\t]/u.test(value) || Buffer.byteLength(value) > MAX_BODY_BYTES) return null;
      body = value;
    }
    // Other hfields (in-reply-to, keywords…) are ignored: RFC 6068 §3 lets clients skip them.
  }
  // An empty `subject=` or `body=` is treated as absent: the sender gets our default.
  return { uri, to, subject: subject || null, body: body || null };
}

/**
 * RFC 6068 §2: a domain may be written as percent-encoded UTF-8; it is used in its A-label form
 * (RFC 5890). A non-ASCII local part would need SMTPUTF8, which we do not send: null.
 */
function aLabelDomain(addr: string | null): string | null {
  if (addr === null || PRINTABLE.test(addr)) return addr;
  const at = addr.lastIndexOf('@');
  if (at < 0 || !PRINTABLE.test(addr.slice(0, at))) return null;
  const domain = addr.slice(at + 1);
  const a = /[\p{Cc}\p{Cf}\p{Z}]/u.test(domain) ? '' : domainToASCII(domain);
  return a === '' ? null : `${addr.slice(0, at + 1)}${a}`;
}

/**
 * RFC 6068 §2 uses percent-encoding only (UTF-8 underneath): '+' is a literal plus, never a
 * space (URLSearchParams decodes it as a space). A bad escape or bad UTF-8 → null.
 */
export function percentDecode(s: string): string | null {
  if (!s.includes('%')) return s; // nothing to decode (and nothing that could fail)
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/**
 * A plain addr-spec: RFC 5322 §3.4.1 dot-atom local part and a DNS host name with a dot, at most
 * 254 octets (RFC 5321 §4.5.3.1.3's path limit less its brackets). Quoted local parts and address
 * literals are refused: no list needs them, and they are where injection tricks hide. The local
 * part may run past RFC 5321 §4.5.3.1.1's 64 octets: real newsletters use 110-octet ones and mail
 * servers take them (§4.5.3.1 itself asks implementations to impose no limits where they can).
 */
export function isMailAddress(addr: string): boolean {
  if (addr.length > 254) return false;
  const m = /^([A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*)@([A-Za-z0-9.-]+)$/.exec(addr);
  if (!m) return false;
  const labels = m[2]!.split('.');
  return labels.length >= 2 && labels.every((l) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l));
}
