/**
 * Security headers, computed once. helmet is written as middleware that builds its headers —
 * parsing the whole CSP — on every request and sets each on the raw response; with no per-route
 * options and no nonces the result never changes, so here helmet runs once at start against a
 * recorder and every response gets the recorded headers (same names, same values).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/** The headers helmet sets for `options`, as a plain object of lower-case names. */
export function securityHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  // helmet only ever calls setHeader and removeHeader on the response.
  const recorder = {
    setHeader: (name: string, value: unknown) => {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (err) => {
    if (err) throw err;
  });
  return headers;
}
