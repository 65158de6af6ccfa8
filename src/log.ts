/**
 * The one logger. Redaction is on for every place a secret could appear: mailbox
 * passwords and tokens must never reach a log line.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { stdoutBatched } from './log-stdout.ts';

/**
 * Where a secret can reach a log line, as exact paths. Every logging call names its fields, and
 * none nests a secret under another object, so the paths are the field names a secret would have
 * at the top of a log object, header names wherever headers are logged, and an error's own fields
 * (pino's err serializer copies them) that carry connection options. Exact paths cost nothing on
 * a line that has none of their first keys; a wildcard first segment ('*.password') ran a
 * redactor over every field of every line, the access log's numbers included
 * (docs/benchmarks.md). The sentinel tests (test/integration/credentials.test.ts, the agent
 * claim test) run whole flows at trace level and find no secret in the output.
 */
const SECRET_FIELDS = [
  'password',
  'pass',
  'token',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'id_token',
  'api_key',
  'claim_token',
  'otp',
  'code_verifier',
  'credential',
  'authorization',
  'cookie',
];
export const REDACT_PATHS = [
  ...SECRET_FIELDS,
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  'res.headers["set-cookie"]',
  'err.password',
  'err.auth',
  'err.config',
  'err.options',
  'err.token',
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

/**
 * ISO 8601 time, as pino.stdTimeFunctions.isoTime writes it, made once per millisecond from a
 * date and time formatted once per second: under load many lines share one, and formatting a
 * Date is a third of a short line's cost. (toISOString writes years 0–9999 with four digits, so
 * its first 20 characters are the date and time up to the decimal point.)
 */
let lastMs = -1;
let lastTime = '';
let lastSecond = -1;
let secondPrefix = '';
function isoTimeCached(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    const second = Math.floor(now / 1000);
    if (second !== lastSecond) {
      lastSecond = second;
      secondPrefix = `,"time":"${new Date(second * 1000).toISOString().slice(0, 20)}`;
    }
    const ms = now - second * 1000;
    lastTime = `${secondPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
  }
  return lastTime;
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const stream = destination ?? stdoutBatched();
  const logger = pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // Fastify's request serializer, with secret query values blanked and no headers (these
      // override Fastify's own).
      serializers: {
        req: (req: LoggedRequest) => ({
          method: req.method,
          url: typeof req.url === 'string' ? redactUrl(req.url) : undefined,
          host: req.host,
          remoteAddress: req.ip,
          remotePort: req.socket?.remotePort,
        }),
      },
      base: { service: 'optout' },
      timestamp: isoTimeCached,
    },
    stream,
  );
  accessWriters.set(logger, (reqId, method, route, status, ms) => {
    stream.write(
      `{"level":30${isoTimeCached()},"service":"optout","reqId":${JSON.stringify(reqId)},${methodAndRoute(method, route)},"status":${status},"ms":${ms},"msg":"request"}\n`,
    );
  });
  return logger;
}

/**
 * `"method":…,"route":…` of an access line, made once per route pattern and method: both come
 * from the registered routes, so there are few, and every request of a route repeats them.
 */
const fragments = new Map<string, Map<string, string>>();
const MAX_ROUTES = 5000;
function methodAndRoute(method: string, route: string): string {
  let byMethod = fragments.get(route);
  if (byMethod === undefined) {
    byMethod = new Map();
    if (fragments.size < MAX_ROUTES) fragments.set(route, byMethod);
  }
  let fragment = byMethod.get(method);
  if (fragment === undefined) {
    fragment = `"method":${JSON.stringify(method)},"route":${JSON.stringify(route)}`;
    byMethod.set(method, fragment);
  }
  return fragment;
}

export type AccessLineWriter = (reqId: string, method: string, route: string, status: number, ms: number) => void;
const accessWriters = new WeakMap<Logger, AccessLineWriter>();

/**
 * The access log's common line (src/http/access-log.ts) for a logger made by createLogger: the
 * bytes pino writes for `logger.info({reqId, method, route, status, ms}, 'request')` (level,
 * time, base bindings, the fields, the message), written to the same destination without
 * pino's generic path, which was a tenth of the API's own CPU per request (bench/api). None of
 * these fields is one the redaction names, and none can carry a secret: a generated id, the
 * method, the route pattern (never the URL), two numbers. log.test.ts holds it to pino's line.
 * null for any other logger (the caller then logs through pino).
 */
export function accessLineWriter(logger: Logger): AccessLineWriter | null {
  return accessWriters.get(logger) ?? null;
}
