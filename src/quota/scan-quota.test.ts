import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase } from '../../test/helpers/postgres.ts';
import { type Db, openPglite, openPostgres } from '../storage/db.ts';
import { migrate } from '../storage/migrate.ts';
import { createScanQuota, purgeFinishedDays } from './scan-quota.ts';

describe('scan quota', () => {
  let db: Db;
  before(async () => {
    db = await openPglite(undefined);
    await migrate(db);
  });
  after(() => db.close());

  test('allows the daily limit per mailbox, case-insensitively, then refuses until UTC midnight', async () => {
    const q = await createScanQuota(db, 3);
    const now = new Date('2026-11-22T15:00:00Z');
    assert.deepEqual(await q.status('Someone@Example.com', now), {
      scans_left: 3,
      resets_at: '2026-11-23T00:00:00.000Z',
    });
    for (const left of [2, 1, 0]) {
      const r = await q.take(left % 2 ? 'someone@example.com' : 'SOMEONE@example.com ', now);
      assert.equal(r.ok, true);
      assert.equal(r.scans_left, left);
    }
    const refused = await q.take('someone@example.com', now);
    assert.equal(refused.ok, false);
    assert.equal(refused.resets_at, '2026-11-23T00:00:00.000Z');
    // the next UTC day starts afresh; another mailbox was never affected
    assert.equal((await q.status('someone@example.com', new Date('2026-11-23T00:00:01Z'))).scans_left, 3);
    assert.equal((await q.status('other@example.com', now)).scans_left, 3);
  });

  test('the table holds no address, only an HMAC', async () => {
    const q = await createScanQuota(db, 3);
    await q.take('private.person@example.net');
    const { rows } = await db.query<{ mailbox_hmac: string }>('select mailbox_hmac from scan_quota');
    for (const r of rows) {
      assert.match(r.mailbox_hmac, /^[0-9a-f]{64}$/);
      assert.ok(!r.mailbox_hmac.includes('private'));
    }
  });
});

describe('scan quota retention', () => {
  test('rows of finished UTC days are deleted; the current day is kept and still counts', async () => {
    const db = await openPglite(undefined);
    try {
      await migrate(db);
      const q = await createScanQuota(db, 3);
      await q.take('a@example.com', new Date('2026-11-21T23:59:00Z'));
      await q.take('a@example.com', new Date('2026-11-22T00:01:00Z'));
      await q.take('b@example.com', new Date('2026-11-22T10:00:00Z'));
      const now = new Date('2026-11-22T12:00:00Z');
      assert.equal(await purgeFinishedDays(db, now), 1);
      const { rows } = await db.query<{ day: string }>("select to_char(day, 'YYYY-MM-DD') as day from scan_quota");
      assert.deepEqual(
        rows.map((r) => r.day),
        ['2026-11-22', '2026-11-22'],
      );
      assert.equal((await q.status('a@example.com', now)).scans_left, 2);
      assert.equal(await purgeFinishedDays(db, new Date('2026-11-23T00:30:00Z')), 2);
    } finally {
      await db.close();
    }
  });
});

describe('scan quota across instances on PostgreSQL', () => {
  test('concurrent scans from two instances never exceed the limit', async () => {
    const pg = await createTestDatabase();
    const a = await openPostgres(pg.url, 4);
    const b = await openPostgres(pg.url, 4);
    try {
      await migrate(a);
      const [qa, qb] = await Promise.all([createScanQuota(a, 3), createScanQuota(b, 3)]);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? qa : qb).take('race@example.com')),
      );
      assert.equal(results.filter((r) => r.ok).length, 3);
    } finally {
      await a.close();
      await b.close();
      await pg.drop();
    }
  });
});
