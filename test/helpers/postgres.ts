/**
 * A throwaway database on the machine's PostgreSQL (DESIGN.md: tests use the real one).
 * Each suite gets its own database, dropped afterwards, so suites never see each
 * other's rows. TEST_PG_URL overrides the server (default: trust auth on 127.0.0.1).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://root@127.0.0.1:5432/test';

export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `optout_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
