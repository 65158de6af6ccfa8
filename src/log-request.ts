/**
 * Request loggers: Fastify gives every request a child of its logger, bound to the request id.
 * pino makes a child by running the redaction over its bindings, a few µs — a fifth of a small
 * API request — and most requests log nothing at the configured level (the access line is
 * written by src/http/access-log.ts, not through the child). So the child is a stand-in that
 * decides by the parent's level and makes the real child (same bindings, same redaction) the
 * moment anything is logged, a child is derived, or its bindings are asked for.
 */
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
const BINDINGS = Symbol('bindings');
const REAL = Symbol('real');
type Deferred = { [BINDINGS]: Bindings; [REAL]?: Logger };
const deferredProtos = new WeakMap<Logger, object>();

/** A child of `parent` made on first use; with options (route-level ones) the real child at once. */
export function deferredChildLogger(parent: Logger, bindings: Bindings, opts?: ChildLoggerOptions): Logger {
  if (opts && Object.keys(opts).length) return parent.child(bindings, opts);
  let proto = deferredProtos.get(parent);
  if (!proto) {
    const real = (self: Deferred): Logger => {
      self[REAL] ??= parent.child(self[BINDINGS]);
      return self[REAL];
    };
    const p: Record<string | symbol, unknown> = Object.create(parent);
    for (const level of LEVELS) {
      p[level] = function (this: Deferred, ...args: unknown[]) {
        if (!this[REAL] && !parent.isLevelEnabled(level)) return;
        (real(this)[level] as (...a: unknown[]) => void)(...args);
      };
    }
    p.child = function (this: Deferred, b: Bindings, o?: ChildLoggerOptions) {
      return real(this).child(b, o);
    };
    p.bindings = function (this: Deferred) {
      return real(this).bindings();
    };
    proto = p;
    deferredProtos.set(parent, proto);
  }
  const self = Object.create(proto) as Deferred;
  self[BINDINGS] = bindings;
  return self as unknown as Logger;
}

/**
 * The logger to give Fastify as `loggerInstance`. Fastify derives its server logger from it
 * once, at start (`child({}, {serializers, …})`), and then one child per request through that
 * logger's own `child`: here that makes deferred children. Going through `child` rather than
 * Fastify's `childLoggerFactory` option matters: Fastify checks each logger a custom factory
 * returns for its seven methods (lib/logger-factory.js, createChildLogger), an array and a
 * closure on every request, and trusts `child`.
 */
export function withDeferredRequestLoggers(logger: Logger): Logger {
  type Child = (bindings: Bindings, opts?: ChildLoggerOptions) => Logger;
  const instance = Object.create(logger) as { child: Child };
  instance.child = (bindings, opts) => {
    const server = logger.child(bindings, opts);
    // the server logger as pino made it, but whose children are deferred
    const wrapped = Object.create(server) as { child: Child };
    wrapped.child = (b, o) => deferredChildLogger(server, b, o);
    return wrapped as unknown as Logger;
  };
  return instance as unknown as Logger;
}
