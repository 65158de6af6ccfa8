/**
 * One JSON POST to a model provider under a deadline, with every way it can go wrong
 * sorted into an LlmFailure. Shared by the provider clients so they agree on what a
 * timeout, a rate limit or a broken answer is.
 */
import type { LlmFailure } from './types.ts';

// A guide answer is a few KB; anything far larger is not an answer we want to hold in memory.
const MAX_BODY_BYTES = 1024 * 1024;
const MAX_RETRY_AFTER_SECONDS = 24 * 3600;

export interface PostJson {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  fetch?: typeof fetch | undefined;
}

export async function postJson(p: PostJson): Promise<{ ok: true; json: unknown } | LlmFailure> {
  const deadline = AbortSignal.timeout(p.timeoutMs);
  const signal = p.signal ? AbortSignal.any([deadline, p.signal]) : deadline;
  // Only our own deadline is a timeout; the caller abandoning the call is not the provider's fault.
  const lost = (): LlmFailure => ({ ok: false, reason: deadline.aborted ? 'timeout' : 'network' });
  let res: Response;
  try {
    res = await (p.fetch ?? fetch)(p.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...p.headers },
      body: JSON.stringify(p.body),
      signal,
      redirect: 'error',
    });
  } catch {
    return lost();
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    const retryAfterSeconds = parseRetryAfter(res.headers.get('retry-after'));
    return {
      ok: false,
      reason: res.status === 429 ? 'rate_limited' : 'http_error',
      status: res.status,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    };
  }
  let text: string | null;
  try {
    text = await readCapped(res);
  } catch {
    return lost();
  }
  if (text === null) return { ok: false, reason: 'bad_response', status: res.status };
  try {
    return { ok: true, json: JSON.parse(text) };
  } catch {
    return { ok: false, reason: 'bad_response', status: res.status };
  }
}

/** the body as text, or null when it exceeds MAX_BODY_BYTES */
async function readCapped(res: Response): Promise<string | null> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.byteLength;
    // leaving the loop early cancels the stream, which releases the connection
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  let seconds: number;
  if (/^\d+$/.test(v)) seconds = Number(v);
  else {
    const at = Date.parse(v);
    if (Number.isNaN(at)) return undefined;
    seconds = Math.ceil((at - now) / 1000);
  }
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, seconds));
}
