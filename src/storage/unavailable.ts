/**
 * Whether an error means "the database cannot be reached right now" rather than a bug: the
 * server refused or dropped the connection, is shutting down or starting up (SQLSTATE class 08,
 * connection exception; 57P01–57P03, operator intervention: PostgreSQL docs, Appendix A), or
 * the pool gave up waiting for a connection. Such a failure is answered 503 UNAVAILABLE
 * (docs/api.md), and the service recovers by itself once the database is back.
 */
/** How long a client is told to wait before trying again, in seconds (HTTP Retry-After, /ws retry_after). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);
const MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|timeout expired)/;

export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; message?: unknown; errors?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (NETWORK.has(code) || /^08/.test(code) || /^57P0[123]$/.test(code)) return true;
  if (typeof e.message === 'string' && MESSAGES.test(e.message)) return true;
  // a connection to several addresses fails with one error per address (AggregateError)
  return Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every(isDatabaseUnavailable);
}
