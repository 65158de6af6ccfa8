/**
 * CORS for the public API: any origin, no credentials (the Fetch Standard's CORS protocol).
 * The headers are the ones @fastify/cors sent for these options, made once: that plugin merged
 * its options into a new object and resolved the origin through a callback on every request,
 * for a result that never changes (bench/api, docs/benchmarks.md).
 *
 * - Every response under /api/v1/ carries Access-Control-Allow-Origin; plumbing.ts sets it in
 *   the same step as the security headers, so it costs no hook of its own.
 * - Access-Control-Expose-Headers travels only with the headers it exposes: the rate-limit
 *   headers and Retry-After (exposeLimitHeaders below). A browser reads it from the response it
 *   belongs to (Fetch Standard, "CORS protocol", HTTP responses), so on an answer that carries
 *   none of them it would only be bytes and work on every request.
 * - A preflight (OPTIONS with Origin and Access-Control-Request-Method) is answered 204 with
 *   the allowed methods and headers, cached for a day; an OPTIONS without those two headers is
 *   not a preflight and gets 400, as @fastify/cors's strict preflight answered it.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Headers a page of another origin may read besides the CORS-safelisted ones (rate limits). */
const EXPOSED = ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];
const EXPOSED_VALUE = EXPOSED.join(', ');

/** On every response of the public API. */
export const PUBLIC_API_CORS: Readonly<Record<string, string>> = Object.freeze({
  'access-control-allow-origin': '*',
});

/**
 * Called where a response gets rate-limit headers or Retry-After: on a CORS response (the public
 * API's), lets a page of another origin read them.
 */
export function exposeLimitHeaders(reply: FastifyReply) {
  if (reply.hasHeader('access-control-allow-origin')) reply.header('access-control-expose-headers', EXPOSED_VALUE);
}

/** On a preflight's answer, besides PUBLIC_API_CORS. */
const PREFLIGHT: Readonly<Record<string, string>> = Object.freeze({
  'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
  'access-control-allow-headers': 'Content-Type',
  'access-control-max-age': '86400',
  'content-length': '0',
});

/** The preflight route of a public scope (its prefix, e.g. /api/v1). */
export function publicApiPreflight(scope: FastifyInstance) {
  scope.options('/*', { schema: { hide: true } }, (req, reply) => {
    if (!req.headers.origin || !req.headers['access-control-request-method']) {
      reply.code(400).type('text/plain').send('Invalid Preflight Request');
      return;
    }
    reply.code(204).headers(PREFLIGHT).send();
  });
}
