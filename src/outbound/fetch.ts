/**
 * One bounded HTTP request through the outbound guard, following redirects by hand.
 *
 * undici's own redirect handling would connect to the next hop before we saw it; here every
 * Location is checked by `guard.checkUrl` and then connected through the guard's pinned
 * dispatcher, so no hop reaches an address the first URL could not. Time and size are capped
 * (RFC 8058 one-click and link checks need neither a long wait nor a large page), cookies are
 * never sent, and the outcome is returned as data.
 */
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { undici } from './connector.ts';
import { classifyFailure, type FailureReason } from './failure.ts';
import type { OutboundGuard } from './guard.ts';

export type RedirectHop = { url: string; status: number };

export type GuardedRequestOptions = {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  maxRedirects?: number;
  timeoutMs?: number;
  maxBytes?: number;
  followRedirects?: boolean;
};

export type GuardedResponse = {
  ok: true;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  finalUrl: string;
  /** Every redirect response seen, in order, as `{url that answered, status}`. */
  redirects: RedirectHop[];
  /** The body was longer than `maxBytes`; `body` holds the first `maxBytes` bytes. */
  truncated: boolean;
  durationMs: number;
};

export type GuardedFailure = { ok: false; reason: FailureReason; detail: string; redirects: RedirectHop[] };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Headers a caller might pass that must never leave: we hold no cookie jar, and ambient
// credentials are exactly what a server-side request forgery wants to borrow.
const NEVER_SENT = ['cookie', 'cookie2', 'proxy-authorization'];
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

export async function guardedRequest(
  guard: OutboundGuard,
  url: string,
  options: GuardedRequestOptions = {},
): Promise<GuardedResponse | GuardedFailure> {
  const { maxRedirects = 5, timeoutMs = 10_000, maxBytes = 1_000_000, followRedirects = true } = options;
  const started = performance.now();
  const redirects: RedirectHop[] = [];
  let method = (options.method ?? 'GET').toUpperCase();
  let body = options.body;
  let headers = cleanHeaders(options.headers ?? {});
  // One deadline for the whole chain: connect, every hop and the body.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
  let current = url;
  try {
    for (;;) {
      const checked = guard.checkUrl(current);
      if (!checked.ok) {
        return { ok: false, reason: 'blocked', detail: `${checked.reason}: ${checked.detail}`, redirects };
      }
      const target = checked.url;
      const res = await undici().request(target, {
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        dispatcher: guard.dispatcher,
        signal: controller.signal,
      });
      const location = headerValue(res.headers.location);
      if (!followRedirects || !REDIRECTS.has(res.statusCode) || location === undefined) {
        const { buf, truncated } = await readCapped(res.body, maxBytes);
        return {
          ok: true,
          status: res.statusCode,
          headers: res.headers,
          body: buf,
          finalUrl: target.href,
          redirects,
          truncated,
          durationMs: Math.round(performance.now() - started),
        };
      }
      redirects.push({ url: target.href, status: res.statusCode });
      // Drain a small redirect body so the connection can be reused; a big one is cut off.
      await res.body.dump({ limit: 64 * 1024, signal: controller.signal }).catch(() => {});
      if (redirects.length > maxRedirects) {
        return { ok: false, reason: 'too_many_redirects', detail: `more than ${maxRedirects} redirects`, redirects };
      }
      let next: URL;
      try {
        next = new URL(location, target);
      } catch {
        return {
          ok: false,
          reason: 'blocked',
          detail: `invalid_url: bad Location ${JSON.stringify(location)}`,
          redirects,
        };
      }
      // Fetch Standard §4.4 "HTTP-redirect fetch": 303 becomes GET (HEAD stays HEAD); 301/302
      // turn POST into GET as browsers do; 307/308 repeat the request as it was (RFC 9110 §15.4).
      if (
        (res.statusCode === 303 && method !== 'HEAD') ||
        ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')
      ) {
        method = 'GET';
        body = undefined;
        headers = omit(headers, BODY_HEADERS);
      }
      // Credentials the caller meant for one origin do not follow a redirect to another.
      if (next.origin !== target.origin) headers = omit(headers, ['authorization']);
      current = next.href;
    }
  } catch (err) {
    const { reason, detail } = classifyFailure(err, controller.signal);
    return { ok: false, reason, detail, redirects };
  } finally {
    clearTimeout(timer);
  }
}

/** Reads at most `maxBytes`, then stops: the rest is never downloaded. */
async function readCapped(stream: AsyncIterable<Buffer> & { destroy(): unknown }, maxBytes: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      stream.destroy();
      return { buf: Buffer.concat(chunks, maxBytes), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { buf: Buffer.concat(chunks, size), truncated: false };
}

function cleanHeaders(input: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(input)) out[k.toLowerCase()] = v;
  return omit(out, NEVER_SENT);
}

function omit(headers: Record<string, string>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !names.includes(k)));
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
