/**
 * Whether a message's one-click (RFC 8058) may be used: only when the receiving server reports
 * a DKIM signature that verified, that the From domain stands behind, and that covers both list
 * headers. RFC 8058 §3.1 asks senders to sign List-Unsubscribe and List-Unsubscribe-Post with
 * DKIM for this reason: without that, anyone can send mail with a POST target of their choosing,
 * and our POST would confirm to them that the address is read. Every other outcome gives the
 * reason, and the person gets mailto or the link instead (docs/unsubscribe.md).
 *
 * Evidence, all of it from the message's header block (the scan fetches DKIM-Signature and
 * Authentication-Results):
 * 1. The topmost Authentication-Results field: a receiving server adds its fields at the top, as
 *    with trace fields (RFC 5321 §4.4), and removes forged copies bearing its own name (RFC 8601
 *    §5); fields further down may come from anyone upstream, so they are not evidence of a pass.
 * 2. Its `dkim=pass` results, each tied to the DKIM-Signature fields it names by `header.b`
 *    (a prefix of the signature's b=, RFC 6008), else `header.d` with `header.s` if given,
 *    else `header.i` (RFC 8601 §2.7.1); a result that names nothing is tied to every signature.
 *    A result counts only when every signature it may mean passes the next two checks.
 * 3. Relaxed alignment (RFC 7489 §3.1.1): the signature's d= and the From domain have the same
 *    organisational domain, taken from the Public Suffix List with its private section (so two
 *    customers of one hosting suffix never align with each other).
 * 4. The signature's h= lists both List-Unsubscribe and List-Unsubscribe-Post (RFC 6376 §3.5).
 */
import { getDomain } from 'tldts';
import { commentEnd, quotedEnd, splitResinfos } from './auth-results.ts';

/** Why one-click is withheld; the /ws protocol carries these (docs/websocket.md). */
export const ONE_CLICK_WITHHELD = [
  /** the receiving server reported no DKIM result at all */
  'unauthenticated',
  /** no DKIM signature verified */
  'dkim_failed',
  /** a signature verified, but for a domain other than the From domain's organisation */
  'not_aligned',
  /** the verified, aligned signature does not cover List-Unsubscribe and List-Unsubscribe-Post */
  'list_headers_unsigned',
] as const;
export type OneClickWithheld = (typeof ONE_CLICK_WITHHELD)[number];

const MAX_VALUE_LENGTH = 8 * 1024;
const MAX_SIGNATURES = 10;
const MAX_RESINFOS = 32;

interface Signature {
  d: string;
  s: string;
  /** b= without whitespace */
  b: string;
  /** h= names, lower-cased */
  h: string[];
}

interface DkimResult {
  pass: boolean;
  props: Map<string, string>;
}

/**
 * null when one-click may be used, else why not. `fromDomain`: the domain of the From address
 * the scan kept (null when the message has none).
 */
export function oneClickWithheld(
  authResults: readonly string[],
  dkimSignatures: readonly string[],
  fromDomain: string | null,
): OneClickWithheld | null {
  const top = authResults[0];
  const results = top === undefined || top.length > MAX_VALUE_LENGTH ? [] : dkimResults(top);
  if (results.length === 0) return 'unauthenticated';
  const passes = results.filter((r) => r.pass);
  if (passes.length === 0) return 'dkim_failed';
  const signatures: Signature[] = [];
  for (const v of dkimSignatures.slice(0, MAX_SIGNATURES)) {
    const sig = v.length > MAX_VALUE_LENGTH ? null : parseSignature(v);
    if (sig) signatures.push(sig);
  }
  const from = fromDomain === null ? null : organisational(fromDomain);
  let best: OneClickWithheld = 'not_aligned';
  for (const r of passes) {
    const candidates = signaturesOf(r.props, signatures);
    // The domain the result vouches for: that of the signatures it means, else its own header.d.
    const own = domainOfResult(r.props);
    if (candidates.length === 0 && own === null) {
      best = 'list_headers_unsigned'; // a pass for no signature we can see: coverage unknown
      continue;
    }
    const domains = candidates.length > 0 ? candidates.map((s) => s.d) : [own!];
    if (from === null || !domains.every((d) => organisational(d) === from)) continue;
    if (candidates.length > 0 && candidates.every(coversListHeaders)) return null;
    best = 'list_headers_unsigned';
  }
  return best;
}

function coversListHeaders(s: Signature): boolean {
  return s.h.includes('list-unsubscribe') && s.h.includes('list-unsubscribe-post');
}

/** The signatures a result may mean (see the module comment, step 2). */
function signaturesOf(props: Map<string, string>, signatures: Signature[]): Signature[] {
  const b = props.get('header.b');
  // RFC 6008: header.b may be a prefix of b=; one under 8 characters cannot tell signatures apart.
  if (b !== undefined && b.length >= 8) return signatures.filter((s) => s.b.startsWith(b));
  const d = props.get('header.d')?.toLowerCase();
  if (d !== undefined) {
    const sel = props.get('header.s')?.toLowerCase();
    return signatures.filter((s) => s.d === d && (sel === undefined || s.s === sel));
  }
  const i = props.get('header.i');
  if (i !== undefined) {
    // RFC 6376 §3.5: i= is the signing domain or a subdomain of it, after an optional local part
    const id = i.slice(i.lastIndexOf('@') + 1).toLowerCase();
    return signatures.filter((s) => id === s.d || id.endsWith(`.${s.d}`));
  }
  return signatures;
}

function domainOfResult(props: Map<string, string>): string | null {
  const d = props.get('header.d') ?? props.get('header.i');
  return d === undefined ? null : d.slice(d.lastIndexOf('@') + 1).toLowerCase();
}

// RFC 8601 §2.2: methodspec = [CFWS] method [CFWS] "=" [CFWS] result; the method may carry "/version"
const DKIM_SPEC = /^\s*dkim\s*(?:\/\s*\d+\s*)?=\s*([a-z]+)/i;
// propspec = ptype [CFWS] "." [CFWS] property [CFWS] "=" pvalue (after comments became spaces)
const PROP = /([a-z][a-z0-9-]*)\s*\.\s*([a-z][a-z0-9_-]*)\s*=\s*/iy;

/** The dkim resinfos of one Authentication-Results value, with their properties. */
function dkimResults(value: string): DkimResult[] {
  const out: DkimResult[] = [];
  const parts = splitResinfos(value);
  for (let k = 0; k < parts.length && k <= MAX_RESINFOS; k++) {
    const text = uncomment(parts[k]!);
    const m = DKIM_SPEC.exec(text);
    // The first part is the authserv-id, which cannot contain '=' (RFC 2045 token); a server
    // that leaves it out starts with a resinfo, read as one.
    if (m === null) continue;
    out.push({ pass: m[1]!.toLowerCase() === 'pass', props: properties(text, m[0].length) });
  }
  return out;
}

/** ptype.property=pvalue pairs after `from`; a pvalue is a quoted string or runs to whitespace. */
function properties(text: string, from: number): Map<string, string> {
  const props = new Map<string, string>();
  for (let i = from; i < text.length; ) {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    PROP.lastIndex = i;
    const m = PROP.exec(text);
    if (m === null) {
      i = skipItem(text, i);
      continue;
    }
    const key = `${m[1]!.toLowerCase()}.${m[2]!.toLowerCase()}`;
    let at = PROP.lastIndex;
    let v: string;
    if (text.charCodeAt(at) === QUOTE) {
      const close = quotedEnd(text, at);
      const end = close < 0 ? text.length : close;
      v = text.slice(at + 1, end).replace(/\\(.)/g, '$1');
      at = end + 1;
    } else {
      let end = at;
      while (end < text.length && !isSpace(text.charCodeAt(end))) end++;
      v = text.slice(at, end);
      at = end;
    }
    if (!props.has(key)) props.set(key, v);
    i = at;
  }
  return props;
}

/** Past one item that is not a propspec (reason="…", a stray word), quoted strings whole. */
function skipItem(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  while (i < text.length && !isSpace(text.charCodeAt(i))) {
    if (text.charCodeAt(i) === QUOTE) {
      const close = quotedEnd(text, i);
      return close < 0 ? text.length : close + 1;
    }
    i++;
  }
  return i;
}

/** The text with each RFC 5322 comment turned into a space (quoted strings kept as they are). */
function uncomment(s: string): string {
  if (!s.includes('(')) return s;
  let out = '';
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) {
      const close = quotedEnd(s, i);
      if (close < 0) break;
      i = close;
    } else if (c === OPEN) {
      const close = commentEnd(s, i);
      out += `${s.slice(run, i)} `;
      if (close < 0) return out;
      run = close + 1;
      i = close;
    }
  }
  return out + s.slice(run);
}

/**
 * RFC 6376 §3.5 tag-list → the tags we use, or null when it is not a usable signature: a tag
 * named twice makes the whole list invalid (§3.2), and d= and h= are required.
 */
function parseSignature(value: string): Signature | null {
  const tags = new Map<string, string>();
  for (const spec of value.split(';')) {
    const eq = spec.indexOf('=');
    if (eq < 0) {
      if (spec.trim() === '') continue; // §3.2: a trailing ';' is allowed
      return null;
    }
    const name = spec.slice(0, eq).trim().toLowerCase();
    if (tags.has(name)) return null;
    tags.set(name, spec.slice(eq + 1));
  }
  const d = tags.get('d')?.trim().toLowerCase();
  const h = tags.get('h');
  if (!d || h === undefined) return null;
  return {
    d,
    s: (tags.get('s') ?? '').trim().toLowerCase(),
    // §3.5: FWS inside b=, h= is ignored
    b: (tags.get('b') ?? '').replace(/[ \t\r\n]+/g, ''),
    h: h
      .replace(/[ \t\r\n]+/g, '')
      .toLowerCase()
      .split(':'),
  };
}

// One scan meets the same few sender domains again and again.
const ORG_CACHE = new Map<string, string>();
const MAX_ORG_CACHE = 4096;

/** RFC 7489 §3.2: the organisational domain; a public suffix itself (or an IP) stands for itself. */
function organisational(domain: string): string {
  const d = domain.toLowerCase().replace(/\.$/, '');
  let org = ORG_CACHE.get(d);
  if (org === undefined) {
    org = getDomain(d, { allowPrivateDomains: true }) ?? d;
    if (ORG_CACHE.size >= MAX_ORG_CACHE) ORG_CACHE.clear();
    ORG_CACHE.set(d, org);
  }
  return org;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

const QUOTE = 0x22;
const OPEN = 0x28;
