/**
 * Runs a suite on both storage engines: embedded PGlite and PostgreSQL (a throwaway
 * database per suite on the test run's private server, test/helpers/postgres.ts). The
 * behaviour asserted must not depend on which.
 */
import { type StartOptions, startTestApp, type TestApp } from './app.ts';
import { createTestDatabase } from './postgres.ts';

export const ENGINES = ['PGlite', 'PostgreSQL'] as const;
export type Engine = (typeof ENGINES)[number];

export async function startAppOn(engine: Engine, opts: StartOptions = {}): Promise<TestApp> {
  if (engine === 'PGlite') return startTestApp(opts);
  const pg = await createTestDatabase();
  const t = await startTestApp({ ...opts, databaseUrl: pg.url });
  return {
    ...t,
    async close() {
      await t.close();
      await pg.drop();
    },
  };
}
