/**
 * Security headers, computed once. @fastify/helmet builds helmet's middleware — parsing the
 * whole CSP — on every request and then sets each header on the raw response; with no
 * per-route options and no nonces the result never changes, so here helmet runs once at start
 * against a recorder and every response gets the recorded headers (same names, same values).
 */
import { createRequire } from 'node:module';

type HeaderSink = { setHeader(name: string, value: string): void; removeHeader(name: string): void };
type Helmet = (options: object) => (req: object, res: HeaderSink, next: (err?: unknown) => void) => void;

// helmet itself, resolved the way @fastify/helmet (our declared dependency) resolves it.
const helmet = createRequire(import.meta.resolve('@fastify/helmet'))('helmet') as Helmet;

/** The headers helmet sets for `options`, as a plain object of lower-case names. */
export function securityHeaders(options: object): Record<string, string> {
  const headers: Record<string, string> = {};
  helmet(options)(
    {},
    {
      setHeader: (name, value) => {
        headers[name.toLowerCase()] = String(value);
      },
      removeHeader: (name) => {
        delete headers[name.toLowerCase()];
      },
    },
    (err) => {
      if (err) throw err;
    },
  );
  return headers;
}
