/**
 * Cross-cutting HTTP behaviour: envelope errors, security headers and JSON-only
 * bodies. CORS is opened per public scope (see corsForPublicApi).
 */
import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { installErrorHandling } from './error-handler.ts';

export async function installPlumbing(app: FastifyInstance, opts: { https: boolean }) {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app);
  // Only JSON bodies are accepted (interface.md §4.5 rule 1); without a text parser a
  // text/plain POST is refused with 415 instead of reaching validation as a string.
  app.removeContentTypeParser(['text/plain']);
  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
        baseUri: ["'self'"],
        objectSrc: ["'none'"],
        // Upgrading subresources only makes sense when the site itself is served over TLS.
        upgradeInsecureRequests: opts.https ? [] : null,
      },
    },
    hsts: opts.https,
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  });
}

/** The public API is read by anyone's pages: CORS for every origin, no credentials. */
export async function corsForPublicApi(scope: FastifyInstance) {
  await scope.register(cors, {
    origin: '*',
    methods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    allowedHeaders: ['Content-Type'],
    exposedHeaders: ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'],
    maxAge: 86400,
  });
}
