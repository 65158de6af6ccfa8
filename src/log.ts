/**
 * The one logger. Redaction is on for every place a secret could appear: mailbox
 * passwords and tokens must never reach a log line.
 */
import pino, { type Bindings, type ChildLoggerOptions, type DestinationStream, type Logger } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.pass',
  '*.accessToken',
  '*.access_token',
  '*.refresh_token',
  '*.refreshToken',
  '*.api_key',
  '*.claim_token',
  '*.otp',
  '*.credential',
  '*.token',
  '*.authorization',
  '*.*.password',
  '*.*.accessToken',
];

/** Query parameters whose values are secrets (the emailed claim link carries `token`). */
const SECRET_QUERY = /([?&](?:token|claim_token|api_key|access_token|otp|code|state)=)[^&#]*/gi;
export const redactUrl = (url: string) => url.replace(SECRET_QUERY, '$1[redacted]');

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // Fastify's request serializer, with secret query values blanked (these override Fastify's own).
      serializers: {
        req: (req: LoggedRequest) => ({
          method: req.method,
          url: redactUrl(req.url),
          host: req.host,
          remoteAddress: req.ip,
          remotePort: req.socket?.remotePort,
        }),
      },
      base: { service: 'optout' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
const BINDINGS = Symbol('bindings');
const REAL = Symbol('real');
type Deferred = { [BINDINGS]: Bindings; [REAL]?: Logger };
const deferredProtos = new WeakMap<Logger, object>();

/**
 * A request's logger (Fastify's childLoggerFactory), made on first use. pino makes a child by
 * running the redaction over its bindings ({reqId}), a few µs — a fifth of a small API request —
 * and most requests log nothing at the configured level. The stand-in decides by the parent's
 * level and makes the real child (same bindings, same redaction) the moment anything is logged,
 * a child is derived, or its bindings are asked for. Route-level options get the real child.
 */
export function deferredChildLogger(parent: Logger, bindings: Bindings, opts: ChildLoggerOptions): Logger {
  if (Object.keys(opts).length) return parent.child(bindings, opts);
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
