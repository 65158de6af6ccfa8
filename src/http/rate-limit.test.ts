import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase } from '../../test/helpers/postgres.ts';
import { type Db, openPglite, openPostgres } from '../storage/db.ts';
import { migrate } from '../storage/migrate.ts';
import { createRateLimit, purgeExpiredRateLimits } from './rate-limit.ts';

const spec = { name: 'test', points: 20, durationSeconds: 60 };

describe('rate limits on the embedded database (memory)', () => {
  let db: Db;
  before(async () => {
    db = await openPglite(undefined);
  });
  after(() => db.close());

  test('allows exactly the limit per key, then refuses with the time to wait', async () => {
    const limit = createRateLimit(db, spec);
    for (let i = 0; i < 20; i++) assert.equal((await limit.consume('198.51.100.1')).allowed, true);
    const refused = await limit.consume('198.51.100.1');
    assert.equal(refused.allowed, false);
    assert.ok(refused.resetSeconds > 0 && refused.resetSeconds <= 60);
    // another client is counted separately
    assert.equal((await limit.consume('198.51.100.2')).allowed, true);
  });
});

describe('rate limits shared through PostgreSQL', () => {
  let pg: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: Db;
  let b: Db;
  before(async () => {
    pg = await createTestDatabase();
    a = await openPostgres(pg.url, 4);
    b = await openPostgres(pg.url, 4);
    await migrate(a);
  });
  after(async () => {
    await a.close();
    await b.close();
    await pg.drop();
  });

  test('two instances together allow exactly 20 per minute for one client', async () => {
    const la = createRateLimit(a, spec);
    const lb = createRateLimit(b, spec);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? la : lb).consume('203.0.113.9').then((r) => r.allowed)),
    );
    assert.equal(results.filter(Boolean).length, 20);
    const { rows } = await a.query<{ points: number }>("select points from rate_limits where key = 'test:203.0.113.9'");
    assert.equal(rows[0]?.points, 30);
  });

  test('the hourly purge deletes counters whose window has ended and keeps running ones', async () => {
    const limit = createRateLimit(a, { name: 'purge', points: 5, durationSeconds: 60 });
    await limit.consume('198.51.100.7');
    await limit.consume('198.51.100.8');
    const keys = async () =>
      (await a.query<{ key: string }>("select key from rate_limits where key like 'purge:%' order by key")).rows.map(
        (r) => r.key,
      );
    assert.equal(await purgeExpiredRateLimits(a), 0);
    assert.deepEqual(await keys(), ['purge:198.51.100.7', 'purge:198.51.100.8']);
    await a.query("update rate_limits set expire = $1 where key = 'purge:198.51.100.7'", [Date.now() - 1000]);
    assert.equal(await purgeExpiredRateLimits(a), 1);
    assert.deepEqual(await keys(), ['purge:198.51.100.8']);
    // an hour and a minute later every window of a one-minute limit has ended (the other test's too)
    assert.ok((await purgeExpiredRateLimits(a, new Date(Date.now() + 3_660_000))) >= 1);
    assert.deepEqual(await keys(), []);
  });
});
