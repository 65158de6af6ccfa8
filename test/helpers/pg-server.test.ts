/**
 * The tests' private PostgreSQL (pg-server.ts): it starts without any server of the machine,
 * and a fault test can take it away and bring it back on the same port with its data intact.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { type PgServer, startPostgres } from './pg-server.ts';

let server: PgServer;
before(async () => {
  server = await startPostgres();
});
after(() => server?.close());

async function query(sql: string): Promise<unknown[]> {
  const c = new pg.Client({ connectionString: server.url, connectionTimeoutMillis: 5000 });
  c.on('error', () => {});
  try {
    await c.connect();
    return (await c.query(sql)).rows;
  } finally {
    await c.end().catch(() => {});
  }
}

test('a private server on a free loopback port, its socket in its own temp dir', async () => {
  assert.match(server.url, /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
  assert.notEqual(server.port, 5432);
  assert.ok(existsSync(`${server.dir}/.s.PGSQL.${server.port}`));
  assert.deepEqual(await query("select current_setting('fsync') as fsync"), [{ fsync: 'off' }]);
});

test('stop() refuses connections until start(), on the same port and with the same data', async () => {
  await query('create table kept (v int); insert into kept values (7)');
  const port = server.port;
  await server.stop();
  await assert.rejects(query('select 1'), { code: 'ECONNREFUSED' });
  await server.start();
  assert.equal(server.port, port);
  assert.deepEqual(await query('select v from kept'), [{ v: 7 }]);
});

test('kill() is a crash: open sessions drop, and start() recovers the committed data', async () => {
  const held = new pg.Client({ connectionString: server.url });
  held.on('error', () => {});
  await held.connect();
  const dropped = held.query('select pg_sleep(30)').then(
    () => 'finished',
    () => 'dropped',
  );
  await server.kill();
  assert.equal(await dropped, 'dropped');
  await server.start();
  assert.deepEqual(await query('select v from kept'), [{ v: 7 }]);
});

test('close() removes the temp dir and is idempotent', async () => {
  const other = await startPostgres();
  await other.close();
  await other.close();
  assert.equal(existsSync(other.dir), false);
});
