/**
 * A throwaway database per suite, so suites never see each other's rows. The server is the
 * test run's private PostgreSQL (pg-server.ts): `npm test` starts one for the whole run
 * (test/global-setup.ts) and passes its URL on in TEST_PG_URL; a test file run on its own
 * starts one for its process on first use. Setting TEST_PG_URL yourself points every suite
 * at that server instead (a superuser URL: suites create and drop databases).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type PgServer, startPostgres } from './pg-server.ts';

let own: Promise<PgServer> | null = null;

/** The superuser URL suites create their databases with. */
export async function pgAdminUrl(): Promise<string> {
  if (process.env.TEST_PG_URL) return process.env.TEST_PG_URL;
  own ??= startPostgres();
  const server = await own;
  // closed when the process exits (pg-server's exit hook), after every suite of this file
  return server.url;
}

export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = await pgAdminUrl();
  const name = `optout_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
