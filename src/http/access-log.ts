/**
 * The access log: one line per completed request, at info, written through the service's one
 * logger (redaction included). It takes the place of Fastify's own request logging (its
 * LogController), which writes two lines per request ("incoming request", "request completed")
 * with the request and response objects run through their serializers — at the default level
 * that alone took about two thirds of the API's throughput (docs/benchmarks.md, bench/api).
 *
 * A line names the route pattern, never the URL: the pattern carries no query (where secret
 * values can travel) and no path values. Failures and slow requests carry the detail an operator
 * needs: the URL with secret query values blanked, the client address and the error code.
 */
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Logger } from 'pino';
import { type AccessLineWriter, accessLineWriter, redactUrl } from '../log.ts';

/** The error code a failed response carried, set by the error handlers for the access log. */
const ERROR_CODE = Symbol('errorCode');

export function noteErrorCode(reply: FastifyReply, code: string) {
  (reply as unknown as Record<symbol, string>)[ERROR_CODE] = code;
}

/**
 * Fastify calls requestCompleted once per request, after the onResponse hooks (with the error
 * when the response stream failed); every other per-request line of Fastify's stays off
 * (disableRequestLogging), since the error handlers log what they handle.
 */
export class AccessLog extends LogController {
  readonly #logger: Logger;
  readonly #slowMs: number;
  /** the common line without pino's generic path, for the service's own logger (log.ts) */
  readonly #line: AccessLineWriter | null;

  /** `slowMs` (LOG_SLOW_MS): a request that took longer is logged with its detail, at warn. */
  constructor(logger: Logger, slowMs: number) {
    super({ disableRequestLogging: true });
    this.#logger = logger;
    this.#slowMs = slowMs;
    this.#line = accessLineWriter(logger);
  }

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply) {
    // a route that opts out reports on its own: /readyz's 503 is an answer, not a failure to log
    // each time a balancer asks (src/health/ logs each change of readiness once)
    // read once: Fastify builds the routeOptions object anew on every read
    const routeOptions = req.routeOptions;
    if ((routeOptions.config as { accessLog?: boolean } | undefined)?.accessLog === false) return;
    const logger = this.#logger;
    const status = reply.statusCode;
    const ms = Math.round(reply.elapsedTime * 100) / 100;
    const slow = ms > this.#slowMs;
    const route = routeOptions.url;
    if (status < 400 && !slow && !error && route !== undefined) {
      // the common case first, and nothing built when info is off
      if (!logger.isLevelEnabled('info')) return;
      if (this.#line) this.#line(req.id, req.method, route, status, ms);
      else logger.info({ reqId: req.id, method: req.method, route, status, ms }, 'request');
      return;
    }
    const level = status >= 500 || error ? 'error' : slow ? 'warn' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    logger[level](
      {
        reqId: req.id,
        method: req.method,
        route: route ?? null,
        status,
        ms,
        url: redactUrl(req.url),
        ip: req.ip,
        code: (reply as unknown as Record<symbol, string | undefined>)[ERROR_CODE] ?? null,
        ...(slow ? { slow: true } : {}),
        ...(error ? { err: error } : {}),
      },
      'request',
    );
  }
}
