/**
 * Cross-cutting HTTP behaviour: envelope errors, security headers, CORS headers of the public
 * API (cors.ts) and JSON-only bodies.
 */
import type { FastifyInstance } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { PUBLIC_API_CORS } from './cors.ts';
import { type ErrorHandlingOptions, installErrorHandling } from './error-handler.ts';
import { securityHeaders } from './security-headers.ts';
import { memoizingValidatorCompiler } from './validation.ts';

export async function installPlumbing(
  app: FastifyInstance,
  opts: { https: boolean; formActionOrigins?: string[] } & ErrorHandlingOptions,
) {
  app.setValidatorCompiler(memoizingValidatorCompiler);
  app.setSerializerCompiler(memoizingSerializerCompiler);
  installErrorHandling(app, opts);
  // Only JSON bodies are accepted (docs/api.md, 415); without a text parser a
  // text/plain POST is refused with 415 instead of reaching validation as a string.
  app.removeContentTypeParser(['text/plain']);
  // Two fixed header sets, computed once (see security-headers.ts). Pages get helmet's full
  // set; JSON under /api/ gets the set the OWASP REST Security Cheat Sheet ("Security Headers")
  // says all API responses should carry, and none of the ones it lists as mattering only when a
  // response is rendered as HTML (Referrer-Policy, Permissions-Policy) — a JSON body never is.
  // Each header costs work on every request (docs/benchmarks.md, bench/api).
  const pageHeaders = securityHeaders({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        frameAncestors: ["'none'"],
        // CSP3 checks form-action on the redirects a submission follows too, so an origin a
        // form's answer redirects to (the sign-in provider's end-session page) is listed here.
        formAction: ["'self'", ...(opts.formActionOrigins ?? [])],
        baseUri: ["'self'"],
        objectSrc: ["'none'"],
        // Upgrading subresources only makes sense when the site itself is served over TLS.
        upgradeInsecureRequests: opts.https ? [] : null,
      },
    },
    hsts: opts.https,
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  });
  const apiHeaders = apiSecurityHeaders(opts.https);
  // the public API's CORS headers in the same object: one hook, one pass over one object
  const publicApiHeaders = Object.freeze({ ...apiHeaders, ...PUBLIC_API_CORS });
  app.addHook('onRequest', (req, reply, done) => {
    const url = req.url;
    reply.headers(url.startsWith('/api/') ? (url.startsWith('/api/v1/') ? publicApiHeaders : apiHeaders) : pageHeaders);
    done();
  });
}

/**
 * The headers of every JSON API response, as the OWASP REST Security Cheat Sheet lists them
 * ("Security Headers"; read 2026-11-27): framing refused twice over (CSP frame-ancestors for
 * current browsers, X-Frame-Options for the rest), no MIME sniffing, HSTS over https. The CSP
 * also allows nothing to load, should a body ever be rendered. Content-Type is set per route.
 * Cache-Control: no-store, which it also lists, is for responses with private data: the catalog
 * is public, and the routes that answer with private data (agent keys) set it themselves.
 */
function apiSecurityHeaders(https: boolean): Record<string, string> {
  return {
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    ...(https ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
  };
}

/**
 * zod's serializer (validate against the response schema, then JSON.stringify), remembering its
 * output for frozen values: a route that answers many requests with one frozen object (the
 * catalog routes do, per record and link state) validates and serializes it once. Frozen is
 * the route's promise that the value will not change.
 */
const memoizingSerializerCompiler: typeof serializerCompiler = (route) => {
  const serialize = serializerCompiler(route);
  const memo = new WeakMap<object, string>();
  return (data: unknown) => {
    if (typeof data !== 'object' || data === null || !Object.isFrozen(data)) return serialize(data);
    let json = memo.get(data);
    if (json === undefined) {
      json = serialize(data);
      memo.set(data, json);
    }
    return json;
  };
};
