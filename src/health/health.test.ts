/**
 * /healthz and /readyz: both answer at once and are never rate-limited or logged per request;
 * /readyz is 503 with the error envelope while draining and while the database is stopped or
 * hangs (within its 1 s bound, never a hang), and 200 again once the database is back, with
 * no restart.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../test/helpers/app.ts';
import { type PgServer, startPostgres } from '../../test/helpers/pg-server.ts';
import { createTestDatabase } from '../../test/helpers/postgres.ts';
import { READY_TIMEOUT_MS } from './readiness.ts';

const get = async (t: TestApp, url: string) => {
  const r = await t.app.inject({ method: 'GET', url });
  return { status: r.statusCode, headers: r.headers, body: r.json() };
};

/** The processes whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === pid;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

for (const engine of ['PGlite', 'PostgreSQL'] as const) {
  describe(`health and readiness on ${engine}`, () => {
    let t: TestApp;
    let drop = async () => {};
    before(async () => {
      const pg = engine === 'PostgreSQL' ? await createTestDatabase() : null;
      if (pg) drop = pg.drop;
      t = await startTestApp({ databaseUrl: pg?.url, runtime: { worker: false } });
    });
    after(async () => {
      await t.close();
      await drop();
    });

    test('both answer 200, are never rate-limited and write no log line per request', async () => {
      const logsBefore = t.logs.length;
      for (let i = 0; i < 60; i++) {
        const health = await get(t, '/healthz');
        assert.equal(health.status, 200);
        assert.equal(health.body.status, 'ok');
        const ready = await get(t, '/readyz');
        assert.equal(ready.status, 200);
        assert.equal(ready.body.code, '0');
        assert.equal(ready.body.data.status, 'ready');
        assert.equal(ready.headers['ratelimit-limit'], undefined);
        assert.equal(ready.headers['cache-control'], 'no-store');
      }
      const lines = t.logs.slice(logsBefore).filter((l) => /healthz|readyz/.test(l));
      assert.deepEqual(lines, []);
    });
  });
}

describe('readiness while draining', () => {
  test('/readyz turns 503 UNAVAILABLE at once; /healthz stays 200', async () => {
    const t = await startTestApp({ runtime: { worker: false } });
    try {
      t.runtime.readiness.drain();
      const ready = await get(t, '/readyz');
      assert.equal(ready.status, 503);
      assert.equal(ready.body.code, 'UNAVAILABLE');
      assert.equal(typeof ready.body.message, 'string');
      assert.equal((await get(t, '/healthz')).status, 200);
      // a balancer polls it: not one log line per answer, not even for a 503
      assert.deepEqual(
        t.logs.filter((l) => /readyz|healthz/.test(l)),
        [],
      );
    } finally {
      await t.close();
    }
  });
});

describe('readiness when PostgreSQL is stopped or hangs', () => {
  let server: PgServer;
  let t: TestApp;
  before(async () => {
    server = await startPostgres();
    t = await startTestApp({ databaseUrl: server.url, runtime: { worker: false } });
  });
  after(async () => {
    await t?.close();
    await server?.close();
  });

  test('stopped: 503 with the envelope, then 200 once it is back, without a restart', async () => {
    assert.equal((await get(t, '/readyz')).status, 200);
    await server.stop();
    const down = await get(t, '/readyz');
    assert.equal(down.status, 503);
    assert.equal(down.body.code, 'UNAVAILABLE');
    // the API fails cleanly too: the error envelope, never a stack
    const api = await get(t, '/api/v1/services/netflix');
    assert.ok(api.status === 200 || api.body.code === 'UNAVAILABLE', `${api.status} ${JSON.stringify(api.body)}`);
    await server.start();
    let back = await get(t, '/readyz');
    for (let i = 0; i < 50 && back.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      back = await get(t, '/readyz');
    }
    assert.equal(back.status, 200);
    assert.ok(
      t.logs.some((l) => l.includes('not ready')),
      'the change was logged once',
    );
  });

  test('hanging (every process stopped): 503 within the bound, never a hang', async () => {
    // PostgreSQL's backends are each their own process group (they call setsid): stop each one.
    const postmaster = Number(readFileSync(join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const family = [postmaster, ...childrenOf(postmaster)];
    for (const pid of family) process.kill(pid, 'SIGSTOP');
    try {
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const r = await get(t, '/readyz');
        const took = Date.now() - started;
        assert.equal(r.status, 503);
        assert.equal(r.body.code, 'UNAVAILABLE');
        assert.ok(took < READY_TIMEOUT_MS + 1500, `answered in ${took} ms`);
      }
    } finally {
      for (const pid of family) process.kill(pid, 'SIGCONT');
    }
    let back = await get(t, '/readyz');
    for (let i = 0; i < 100 && back.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      back = await get(t, '/readyz');
    }
    assert.equal(back.status, 200);
  });
});
