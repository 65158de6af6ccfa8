/**
 * Authentication-Results (RFC 8601) → one DKIM, SPF and DMARC verdict per message.
 *
 * The header is written by receiving servers, but a sender can forge one upstream and we cannot
 * know which authserv-id the user's own provider uses. So a "fail" anywhere is believed (a forger
 * gains nothing by claiming failure) and, for SPF and DMARC, outweighs any "pass".
 *
 * Result words map to verdicts: pass → pass, fail → fail, none → none; everything else
 * (softfail, neutral, policy, temperror, permerror) → unknown, and so does a method no header
 * mentions: the verdict is "we cannot tell", not a failure.
 */
import type { AuthVerdict, SenderAuth } from './types.ts';

const MAX_VALUE_LENGTH = 8 * 1024;
const MAX_VALUES = 20;

// RFC 8601 §2.2: methodspec = method [ "/" version ] "=" result, at the start of a resinfo
const METHOD_SPEC = /^\s*(dkim|spf|dmarc)\s*(?:\/\s*\d+\s*)?=\s*([a-z]+)/i;
const METHOD_SPEC_AT = new RegExp(METHOD_SPEC.source.slice(1), 'iy');
const PASS = 1;
const FAIL = 2;
const NONE = 4;

/**
 * Runs for every scanned message, so it is written not to copy text: each resinfo is matched
 * in place in the value, results are collected as bits (pass/fail/none seen per method), and
 * the outcome is the first verdict of the method's order that was seen, else unknown.
 */
export function parseAuthResults(values: string[]): SenderAuth {
  let bits = 0; // dkim in bits 0–2, spf in 3–5, dmarc in 6–8
  for (let v = 0; v < values.length && v < MAX_VALUES; v++) {
    const value = values[v]!;
    if (value.length > MAX_VALUE_LENGTH) continue;
    // RFC 8601 §2.2: authserv-id [version] *( ";" resinfo ); the first part names the server.
    bits |= resinfoBits(value);
  }
  // A message may carry several DKIM signatures; one that verifies authenticates it
  // (RFC 6376 §6.1: each signature is evaluated on its own). Only then do failures count.
  return verdicts(first(bits & 7, PASS, FAIL), first((bits >> 3) & 7, FAIL, PASS), first((bits >> 6) & 7, FAIL, PASS));
}

// The 64 possible answers, made once: this runs for every scanned message, and callers only read them.
const VERDICTS: AuthVerdict[] = ['unknown', 'pass', 'fail', 'none'];
const ANSWERS = new Map<string, SenderAuth>();
for (const dkim of VERDICTS)
  for (const spf of VERDICTS)
    for (const dmarc of VERDICTS) ANSWERS.set(`${dkim} ${spf} ${dmarc}`, Object.freeze({ dkim, spf, dmarc }));
const BY_INDEX = VERDICTS.flatMap((dkim) =>
  VERDICTS.flatMap((spf) => VERDICTS.map((dmarc) => ANSWERS.get(`${dkim} ${spf} ${dmarc}`)!)),
);

function verdicts(dkim: AuthVerdict, spf: AuthVerdict, dmarc: AuthVerdict): SenderAuth {
  return BY_INDEX[VERDICTS.indexOf(dkim) * 16 + VERDICTS.indexOf(spf) * 4 + VERDICTS.indexOf(dmarc)]!;
}

/**
 * The result bits of every resinfo of one value that starts with a DKIM, SPF or DMARC method
 * (packed as in parseAuthResults). Resinfos are split on ';' outside RFC 5322 comments and
 * quoted strings, and read as if each comment were a space and each quoted string '""': a
 * comment such as "(spf=pass; ignored)" or reason="dkim=pass" is never read as a result. A
 * match found in place is the same match, since no part of it can be a comment or a quote; only
 * a resinfo that fails in place and holds '(' or '"' is rebuilt without them and tried again.
 */
function resinfoBits(value: string): number {
  let bits = 0;
  let special = nextSpecial(value, 0);
  // RFC 8601 §2.2: authserv-id [version] *( ";" resinfo ): the first part names the server.
  for (let start = 0, part = 0; start >= 0; part++) {
    // this part ends at the next ';' outside comments and quoted strings
    let end = value.indexOf(';', start);
    while (special >= 0 && special < (end < 0 ? value.length : end)) {
      const close = value.charCodeAt(special) === OPEN ? commentEnd(value, special) : quotedEnd(value, special);
      if (close < 0) {
        end = -1; // unterminated: it runs to the end of the value
        special = -1;
        break;
      }
      special = nextSpecial(value, close + 1);
      if (end >= 0 && end < close) end = value.indexOf(';', close + 1);
    }
    if (part > 0) {
      const stop = end < 0 ? value.length : end;
      METHOD_SPEC_AT.lastIndex = start;
      let m = METHOD_SPEC_AT.exec(value);
      if (m === null && hasSpecial(value, start, stop)) m = METHOD_SPEC.exec(plain(value, start, stop));
      if (m !== null) {
        const method = m[1]!.length; // dkim 4, spf 3, dmarc 5 (any case)
        bits |= verdictBit(m[2]!) << (method === 4 ? 0 : method === 3 ? 3 : 6);
      }
    }
    start = end < 0 ? -1 : end + 1;
  }
  return bits;
}

function nextSpecial(value: string, from: number): number {
  const open = value.indexOf('(', from);
  const quote = value.indexOf('"', from);
  return open < 0 ? quote : quote < 0 ? open : Math.min(open, quote);
}

function hasSpecial(value: string, from: number, to: number): boolean {
  const at = nextSpecial(value, from);
  return at >= 0 && at < to;
}

/** value[from, to) with each comment turned into ' ' and each quoted string into '""' (as read). */
function plain(value: string, from: number, to: number): string {
  let out = '';
  let run = from;
  for (let at = nextSpecial(value, from); at >= 0 && at < to; at = nextSpecial(value, run)) {
    const isComment = value.charCodeAt(at) === OPEN;
    const close = isComment ? commentEnd(value, at) : quotedEnd(value, at);
    out += value.slice(run, at);
    // an unterminated comment leaves nothing, an unterminated quoted string its '""'
    if (close < 0) return isComment ? out : `${out}""`;
    out += isComment ? ' ' : '""';
    run = close + 1;
  }
  return out + value.slice(run, to);
}

/** pass, fail, none (any case) → their bit; softfail, neutral, temperror… → 0 (unknown). */
function verdictBit(result: string): number {
  const r = result.length === 4 ? result.toLowerCase() : '';
  return r === 'pass' ? PASS : r === 'fail' ? FAIL : r === 'none' ? NONE : 0;
}

/** The verdict of the first bit of the order [a, b, none] that is set; nothing → unknown. */
function first(bits: number, a: number, b: number): AuthVerdict {
  const name = (bit: number): AuthVerdict => (bit === PASS ? 'pass' : 'fail');
  if (bits & a) return name(a);
  if (bits & b) return name(b);
  return bits & NONE ? 'none' : 'unknown';
}

/** Index of the ')' closing the comment opened at `at` (nested, with quoted-pairs), or -1. */
export function commentEnd(value: string, at: number): number {
  let depth = 0;
  for (let i = at; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === BACKSLASH)
      i++; // quoted-pair: skip the escaped character too
    else if (c === OPEN) depth++;
    else if (c === CLOSE && --depth === 0) return i;
  }
  return -1;
}

/** Index of the '"' closing the quoted string opened at `at` (with quoted-pairs), or -1. */
export function quotedEnd(value: string, at: number): number {
  for (let i = at + 1; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return -1;
}

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const OPEN = 0x28;
const CLOSE = 0x29;

/**
 * The parts of one Authentication-Results value, split on ';' outside RFC 5322 comments and
 * quoted strings (RFC 8601 §2.2): [authserv-id part, resinfo, resinfo…]. Bounded by the caller.
 */
export function splitResinfos(value: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === OPEN || c === QUOTE) {
      const close = c === OPEN ? commentEnd(value, i) : quotedEnd(value, i);
      if (close < 0) break; // unterminated: it runs to the end of the value
      i = close;
    } else if (c === SEMICOLON) {
      parts.push(value.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(value.slice(start));
  return parts;
}

const SEMICOLON = 0x3b;
