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

type Method = keyof SenderAuth;

export function parseAuthResults(values: string[]): SenderAuth {
  const seen: Record<Method, AuthVerdict[]> = { dkim: [], spf: [], dmarc: [] };
  for (const value of values.slice(0, MAX_VALUES)) {
    if (value.length > MAX_VALUE_LENGTH) continue;
    // RFC 8601 §2.2: authserv-id [version] *( ";" resinfo ); the first part names the server.
    const [, ...resinfos] = splitTopLevel(value);
    for (const resinfo of resinfos) {
      // RFC 8601 §2.2: methodspec = method [ "/" version ] "=" result
      const m = /^\s*(dkim|spf|dmarc)\s*(?:\/\s*\d+\s*)?=\s*([a-z]+)/i.exec(resinfo);
      if (m) seen[m[1]!.toLowerCase() as Method].push(word(m[2]!));
    }
  }
  return {
    // A message may carry several DKIM signatures; one that verifies authenticates it
    // (RFC 6376 §6.1: each signature is evaluated on its own). Only then do failures count.
    dkim: combine(seen.dkim, ['pass', 'fail', 'none']),
    spf: combine(seen.spf, ['fail', 'pass', 'none']),
    dmarc: combine(seen.dmarc, ['fail', 'pass', 'none']),
  };
}

function word(result: string): AuthVerdict {
  const r = result.toLowerCase();
  return r === 'pass' || r === 'fail' || r === 'none' ? r : 'unknown';
}

/** The first verdict of `order` that occurs in `results` wins; nothing known → unknown. */
function combine(results: AuthVerdict[], order: AuthVerdict[]): AuthVerdict {
  return order.find((v) => results.includes(v)) ?? 'unknown';
}

/**
 * Split on ';' outside RFC 5322 comments and quoted strings, dropping both: a comment such as
 * "(spf=pass; ignored)" or reason="dkim=pass" must not be read as a result.
 */
function splitTopLevel(value: string): string[] {
  const parts: string[] = [];
  let cur = '';
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\' && (quoted || depth > 0)) {
      i++; // quoted-pair: skip the escaped character too
    } else if (quoted) {
      if (c === '"') quoted = false;
    } else if (c === '(') {
      depth++;
    } else if (depth > 0) {
      if (c === ')') depth--;
      if (depth === 0) cur += ' ';
    } else if (c === '"') {
      quoted = true;
      cur += '""';
    } else if (c === ';') {
      parts.push(cur);
      cur = '';
    } else {
      cur += c;
    }
  }
  parts.push(cur);
  return parts;
}
