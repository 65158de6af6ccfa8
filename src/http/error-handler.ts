/**
 * Maps every failure to the envelope and the error catalog: our ApiErrors, Fastify's
 * own (bad JSON, wrong content type, oversize body), zod validation (the message names
 * the field), and anything unexpected as INTERNAL without internals. Never HTML — except
 * a 404 for a page path a browser navigated to, which gets the page the web layer renders.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../storage/unavailable.ts';
import { noteErrorCode } from './access-log.ts';
import { exposeLimitHeaders } from './cors.ts';
import { ApiError, ERRORS, type ErrorCode } from './errors.ts';

function send(reply: FastifyReply, code: ErrorCode, message: string, headers?: Record<string, string>) {
  noteErrorCode(reply, code);
  if (headers) {
    reply.headers(headers);
    if ('retry-after' in headers) exposeLimitHeaders(reply);
  }
  return reply.code(ERRORS[code]).type('application/json; charset=utf-8').send({ code, message });
}

/** "body.options.tone: Invalid option: expected one of …" — the field first. */
export function describeValidation(err: FastifyError & { validationContext?: string }): string {
  const where = err.validationContext ?? 'request';
  if (hasZodFastifySchemaValidationErrors(err)) {
    return err.validation
      .slice(0, 5)
      .map((v) => {
        const path = v.instancePath.replace(/^\//, '').replaceAll('/', '.');
        return `${where}${path ? `.${path}` : ''}: ${v.message}`;
      })
      .join('; ');
  }
  return `${where}: ${err.message}`;
}

const BY_STATUS: Partial<Record<number, ErrorCode>> = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
};

export interface ErrorHandlingOptions {
  /** the HTML 404 for browser page paths; API, channel and discovery paths stay JSON */
  pageNotFound?: { isPagePath(path: string): boolean; render(path: string): string };
}

/**
 * Fastify's router answers some malformed requests itself, before any hook or error handler
 * (FST_ERR_BAD_URL: a path whose percent-escapes are not UTF-8; FST_ERR_ASYNC_CONSTRAINT): the
 * `frameworkErrors` option hands them here, so they too get the envelope and a catalogued code
 * instead of Fastify's own body with its internal error code.
 */
export function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply) {
  if (err.code === 'FST_ERR_BAD_URL')
    return send(reply, 'INVALID_REQUEST', 'the URL is not valid (bad percent-encoding)');
  const status = err.statusCode ?? 500;
  return send(reply, (status < 500 && BY_STATUS[status]) || 'INVALID_REQUEST', 'the request could not be routed');
}

export function installErrorHandling(app: FastifyInstance, opts: ErrorHandlingOptions = {}) {
  app.setErrorHandler((err: FastifyError & { validationContext?: string }, req: FastifyRequest, reply) => {
    if (err instanceof ApiError) return send(reply, err.code, err.message, err.headers);
    if (err.validation) return send(reply, 'INVALID_REQUEST', describeValidation(err));
    const status = err.statusCode ?? 500;
    const code = status < 500 ? BY_STATUS[status] : undefined;
    if (code) {
      const message =
        err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? `unsupported content type ${JSON.stringify(req.headers['content-type'] ?? '')}; send application/json`
          : err.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
            ? 'request body too large'
            : err.message;
      return send(reply, code, message);
    }
    if (isDatabaseUnavailable(err)) {
      req.log.warn({ err: String(err) }, 'database unavailable');
      return send(reply, 'UNAVAILABLE', 'the service is briefly unavailable; try again shortly', {
        'retry-after': String(DATABASE_RETRY_AFTER_SECONDS),
      });
    }
    req.log.error({ err }, 'unhandled error');
    return send(reply, 'INTERNAL', 'internal error; the request was not completed');
  });

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0]!;
    const pages = opts.pageNotFound;
    if (pages && (req.method === 'GET' || req.method === 'HEAD') && pages.isPagePath(path)) {
      return reply
        .code(404)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(pages.render(path));
    }
    return send(reply, 'NOT_FOUND', `no route for ${req.method} ${path}`);
  });
}
