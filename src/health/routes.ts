/**
 * `/healthz`: the process is alive and serving (for a supervisor's restart decision).
 * `/readyz`: send this instance new work (for a balancer; readiness.ts): 200 with the envelope,
 * or 503 with the error envelope (UNAVAILABLE) while shutting down or while the database does
 * not answer. Neither is rate-limited nor cached, and neither writes an access-log line (a
 * balancer asks every few seconds; src/http/access-log.ts): readiness logs its changes itself.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/errors.ts';
import type { Readiness } from './readiness.ts';

const REASON = {
  draining: 'not ready: shutting down',
  database_timeout: 'not ready: the database did not answer in time',
  database_error: 'not ready: the database is unavailable',
} as const;

export async function healthRoutes(app: FastifyInstance, { readiness }: { readiness: Readiness }) {
  const quiet = { schema: { hide: true }, logLevel: 'warn', config: { accessLog: false } } as const;
  app.get('/healthz', quiet, async (_req, reply) => {
    reply.header('cache-control', 'no-store');
    return { status: 'ok' };
  });
  app.get('/readyz', quiet, async (_req, reply) => {
    reply.header('cache-control', 'no-store');
    const state = await readiness.check();
    if (!state.ready) throw new ApiError('UNAVAILABLE', REASON[state.reason], { 'retry-after': '5' });
    return { code: '0', data: { status: 'ready', database_ms: state.databaseMs }, message: '' };
  });
}
