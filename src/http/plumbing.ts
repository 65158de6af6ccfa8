/**
 * Cross-cutting HTTP behaviour: envelope errors, security headers, CORS headers of the public
 * API (cors.ts) and JSON-only bodies.
 */
import type { FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { PUBLIC_API_CORS } from './cors.ts';
import { type ErrorHandlingOptions, installErrorHandling } from './error-handler.ts';
import { securityHeaders } from './security-headers.ts';

export async function installPlumbing(
  app: FastifyInstance,
  opts: { https: boolean; formActionOrigins?: string[] } & ErrorHandlingOptions,
) {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(memoizingSerializerCompiler);
  installErrorHandling(app, opts);
  // Only JSON bodies are accepted (docs/api.md, 415); without a text parser a
  // text/plain POST is refused with 415 instead of reaching validation as a string.
  app.removeContentTypeParser(['text/plain']);
  // Two fixed header sets, computed once (see security-headers.ts). Pages get helmet's full
  // set; JSON under /api/ gets the short set the OWASP REST Security Cheat Sheet names for
  // APIs ("Security Headers"): a JSON body is never a document, so a CSP that allows nothing
  // and forbids framing says all there is to say, and each header a response does not need is
  // work on every request (bench/api).
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

/** The headers of every JSON API response (OWASP REST Security Cheat Sheet, "Security Headers"). */
function apiSecurityHeaders(https: boolean): Record<string, string> {
  return {
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    // public data, meant to be read from other origins (CORS is open on /api/v1)
    'cross-origin-resource-policy': 'cross-origin',
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
