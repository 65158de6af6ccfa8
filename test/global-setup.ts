/**
 * `npm test`'s global setup (node --test-global-setup): one private PostgreSQL for the whole
 * run, shared by every test file through TEST_PG_URL (test files run in child processes that
 * inherit this environment). A TEST_PG_URL already set is used as it is.
 */
import type { PgServer } from './helpers/pg-server.ts';
import { startPostgres } from './helpers/pg-server.ts';

let server: PgServer | null = null;

export async function globalSetup(): Promise<void> {
  if (process.env.TEST_PG_URL) return;
  server = await startPostgres();
  process.env.TEST_PG_URL = server.url;
}

export async function globalTeardown(): Promise<void> {
  await server?.close();
}
