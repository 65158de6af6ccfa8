/**
 * Turns whatever undici or Node threw into one of a few reasons a caller can act on
 * (retry later, report "blocked", show a TLS problem). Messages are kept; stacks are not.
 */
import { OutboundBlockedError } from './connector.ts';

export type FailureReason = 'blocked' | 'timeout' | 'too_many_redirects' | 'network' | 'tls' | 'dns';

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME', 'ENODATA', 'ESERVFAIL']);
// OpenSSL certificate verification codes as Node reports them (plus its own ERR_TLS_* / ERR_SSL_*).
const TLS_CODE =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$)/;

export function classifyFailure(err: unknown, signal: AbortSignal): { reason: FailureReason; detail: string } {
  // Our own deadline fired: whatever undici threw on the way out is a consequence of it.
  if (signal.aborted) return { reason: 'timeout', detail: messageOf(signal.reason) };
  const chain = causes(err);
  const blocked = chain.find((e) => e instanceof OutboundBlockedError);
  if (blocked) return { reason: 'blocked', detail: `${blocked.refusal.reason}: ${blocked.refusal.detail}` };
  const codes = chain.map((e) => (e as NodeJS.ErrnoException).code).filter((c): c is string => typeof c === 'string');
  const detail = messageOf(err);
  if (codes.some((c) => DNS_CODES.has(c))) return { reason: 'dns', detail };
  if (codes.some((c) => TIMEOUT_CODES.has(c))) return { reason: 'timeout', detail };
  if (codes.some((c) => TLS_CODE.test(c))) return { reason: 'tls', detail };
  return { reason: 'network', detail };
}

/** The error, its `cause`s and an AggregateError's members (Happy Eyeballs tries several addresses). */
function causes(err: unknown): object[] {
  const out: object[] = [];
  const queue: unknown[] = [err];
  while (queue.length > 0 && out.length < 16) {
    const e = queue.shift();
    if (e === null || typeof e !== 'object' || out.includes(e)) continue;
    out.push(e);
    queue.push((e as { cause?: unknown }).cause);
    if (e instanceof AggregateError) queue.push(...e.errors);
  }
  return out;
}

function messageOf(e: unknown): string {
  if (e instanceof AggregateError && e.message === '' && e.errors.length > 0) return messageOf(e.errors[0]);
  return e instanceof Error ? e.message : String(e);
}
