import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loopbackCatalog } from '../../test/helpers/catalog.ts';
import { startHttpTarget } from '../../test/helpers/http-target.ts';
import { createTestDatabase } from '../../test/helpers/postgres.ts';
import { waitFor } from '../../test/helpers/wait-for.ts';
import { syncCatalog } from '../catalog/sync.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../log.ts';
import { createRuntime } from '../runtime.ts';
import { openPostgres } from '../storage/db.ts';
import { migrate } from '../storage/migrate.ts';
import { SWEEP_QUEUE } from './queue.ts';
import { WEEKLY_CRON } from './schedule.ts';

const FAST = {
  pollingIntervalSeconds: 0.5,
  heartbeatSeconds: 10,
  superviseIntervalSeconds: 1,
  cronMonitorIntervalSeconds: 1,
};
const silent = createLogger('silent');

async function twoInstances(schedule: string | undefined, slugs: string[], worker = true) {
  const target = await startHttpTarget();
  const pg = await createTestDatabase();
  const catalog = loopbackCatalog(slugs.map((slug) => ({ slug, url: `${target.origin}/${slug}/cancel` })));
  const config = loadConfig({
    DATABASE_URL: pg.url,
    OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${target.port}`,
    ...(schedule ? { LINK_CHECK_SCHEDULE: schedule } : {}),
  });
  const dbs = [await openPostgres(pg.url, 4), await openPostgres(pg.url, 4)];
  await migrate(dbs[0]!);
  await syncCatalog(dbs[0]!, catalog);
  const runtimes: Awaited<ReturnType<typeof createRuntime>>[] = [];
  for (const db of dbs) {
    const runtime = await createRuntime({ config, db, catalog, logger: silent }, { queueTiming: FAST, worker });
    await runtime.queue.open();
    runtimes.push(runtime);
  }
  return {
    target,
    catalog,
    db: dbs[0]!,
    runtimes,
    async close() {
      for (const r of runtimes) await r.close();
      for (const db of dbs) await db.close();
      await pg.drop();
      await target.close();
    },
  };
}

const schedules = async (db: { query: (sql: string) => Promise<{ rows: unknown[] }> }) =>
  (await db.query(`select name, cron, timezone from pgboss.schedule where name = '${SWEEP_QUEUE}'`)).rows;

describe('the link-check schedule', () => {
  test('by default every instance keeps the one weekly schedule; LINK_CHECK_SCHEDULE=off removes it', async () => {
    const t = await twoInstances(undefined, ['weekly-a']);
    try {
      assert.deepEqual(await schedules(t.db), [{ name: SWEEP_QUEUE, cron: WEEKLY_CRON, timezone: 'UTC' }]);
      const off = await createRuntime(
        { config: loadConfig({ LINK_CHECK_SCHEDULE: 'off' }), db: t.db, catalog: t.catalog, logger: silent },
        { worker: false, queueTiming: FAST },
      );
      await off.queue.open();
      await off.close();
      assert.deepEqual(await schedules(t.db), []);
      assert.equal(t.target.seen.length, 0, 'nothing came due');
    } finally {
      await t.close();
    }
  });

  test('each occurrence sweeps once across two instances: every service is checked once per sweep', async () => {
    const slugs = ['sweep-a', 'sweep-b', 'sweep-c', 'sweep-d'];
    // every minute, so an occurrence (the start of this minute) is due as soon as the instances start
    const t = await twoInstances('* * * * *', slugs);
    try {
      await waitFor(async () => {
        const done = slugs.every((s) => t.target.seen.some((r) => r.url === `/${s}/cancel`));
        return done || undefined;
      }, 30_000);
      await new Promise((r) => setTimeout(r, 2500));
      const sweeps = await t.db.query<{ n: number; slots: number }>(
        `select count(*)::int as n, count(distinct date_trunc('minute', created_on))::int as slots
         from pgboss.job where name = $1`,
        [SWEEP_QUEUE],
      );
      const { n, slots } = sweeps.rows[0]!;
      assert.ok(n >= 1);
      assert.equal(n, slots, 'one sweep job per occurrence, however many instances ran the cron pass');
      for (const s of slugs) {
        assert.equal(t.target.seen.filter((r) => r.url === `/${s}/cancel`).length, n, `${s} checked once per sweep`);
      }
      const { rows } = await t.db.query<{ n: number }>('select count(*)::int as n from link_state');
      assert.equal(rows[0]!.n, slugs.length);
    } finally {
      await t.close();
    }
  });

  test('a sweep asked for while one is pending joins it', async () => {
    const t = await twoInstances('off', ['join-a'], false);
    try {
      assert.notEqual(await t.runtimes[0]!.queue.sweepNow(), null);
      assert.equal(await t.runtimes[1]!.queue.sweepNow(), null, 'joined the pending sweep');
      const { rows } = await t.db.query<{ n: number }>('select count(*)::int as n from pgboss.job where name = $1', [
        SWEEP_QUEUE,
      ]);
      assert.equal(rows[0]!.n, 1);
    } finally {
      await t.close();
    }
  });
});
