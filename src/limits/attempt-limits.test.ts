/**
 * The attempt limits on their own, on the embedded database (the counters in memory) and on
 * PostgreSQL (shared rows): failed sign-ins per address and per IP, reserved before the mail
 * server is asked and given back unless it refused; scans and unsubscribes per IP; concurrent
 * connections per IP. Across instances and over /ws: test/integration/ws-limits.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase } from '../../test/helpers/postgres.ts';
import { loadConfig } from '../config.ts';
import { type Db, openPglite, openPostgres } from '../storage/db.ts';
import { migrate } from '../storage/migrate.ts';
import { type AttemptLimits, createAttemptLimits } from './attempt-limits.ts';

const LIMITS = {
  ...loadConfig({}).limits,
  signInFailuresPerAddress: 3,
  signInFailuresPerIp: 5,
  scansPerIp: 2,
  unsubscribesPerIp: 10,
  connectionsPerIp: 2,
};

for (const kind of ['PGlite', 'PostgreSQL'] as const) {
  describe(`attempt limits on ${kind}`, () => {
    let db: Db;
    let drop: () => Promise<void> = async () => {};
    let limits: AttemptLimits;
    before(async () => {
      if (kind === 'PGlite') db = await openPglite(undefined);
      else {
        const t = await createTestDatabase();
        drop = t.drop;
        db = await openPostgres(t.url, 4);
      }
      await migrate(db);
      limits = await createAttemptLimits(db, LIMITS);
    });
    after(async () => {
      await limits.close();
      await db.close();
      await drop();
    });

    test('failed sign-ins: the address’s fourth attempt within the hour is refused; successes cost nothing', async () => {
      const ip = '198.51.100.1';
      for (let i = 0; i < 5; i++) {
        const r = await limits.signIn('Ann@Example.test', ip);
        assert.ok(r.ok);
        await r.settle('other'); // signed in, or never reached the password check
      }
      for (let i = 0; i < 3; i++) {
        const r = await limits.signIn(' ann@example.test ', ip); // the same address, however written
        assert.ok(r.ok, `attempt ${i + 1}`);
        await r.settle('refused');
      }
      const refused = await limits.signIn('ann@example.test', ip);
      assert.equal(refused.ok, false);
      assert.ok(!refused.ok && refused.per === 'address');
      assert.ok(!refused.ok && refused.retryAfter > 3500 && refused.retryAfter <= 3600);
      // another address from the same IP is still allowed (the IP has 3 of 5)
      const other = await limits.signIn('bob@example.test', ip);
      assert.ok(other.ok);
      await other.settle('other');
    });

    test('failed sign-ins per IP count across addresses; attempts in flight count too', async () => {
      const ip = '198.51.100.2';
      const pending = [];
      for (let i = 0; i < 5; i++) {
        const r = await limits.signIn(`user${i}@example.test`, ip);
        assert.ok(r.ok);
        pending.push(r);
      }
      const sixth = await limits.signIn('user9@example.test', ip);
      assert.equal(sixth.ok, false);
      assert.ok(!sixth.ok && sixth.per === 'ip');
      // one in flight turns out to be a success: its place comes back
      await pending[0]!.settle('other');
      await pending[0]!.settle('refused'); // settling twice changes nothing
      const again = await limits.signIn('user9@example.test', ip);
      assert.ok(again.ok);
      await again.settle('refused');
      for (const p of pending.slice(1)) await p.settle('refused');
      assert.equal((await limits.signIn('user10@example.test', ip)).ok, false);
    });

    test('scans and unsubscribes per IP; a refused request counts nothing', async () => {
      const ip = '198.51.100.3';
      assert.ok((await limits.scan(ip)).ok);
      assert.ok((await limits.scan(ip)).ok);
      const third = await limits.scan(ip);
      assert.ok(!third.ok && third.retryAfter > 0);
      assert.ok((await limits.unsubscribe(ip, 8)).ok);
      assert.equal((await limits.unsubscribe(ip, 3)).ok, false); // 8 + 3 > 10: refused whole
      assert.ok((await limits.unsubscribe(ip, 2)).ok); // the refused 3 were not counted
      assert.ok((await limits.unsubscribe(ip, 0)).ok);
      assert.equal((await limits.unsubscribe(ip, 1)).ok, false);
      assert.ok((await limits.scan('198.51.100.4')).ok); // another client
    });

    test('connections per IP: the third at once is refused until one closes', async () => {
      const ip = '198.51.100.5';
      const a = await limits.connections.acquire(ip);
      const b = await limits.connections.acquire(ip);
      assert.ok('release' in a && 'release' in b);
      const c = await limits.connections.acquire(ip);
      assert.ok('refused' in c && c.retryAfter > 0);
      assert.ok('release' in (await limits.connections.acquire('198.51.100.6')));
      a.release();
      a.release(); // idempotent
      const d = await limits.connections.acquire(ip);
      assert.ok('release' in d);
      assert.ok('refused' in (await limits.connections.acquire(ip)));
      b.release();
      d.release();
    });

    test('neither an address nor an IP is stored in clear', async () => {
      if (kind === 'PGlite') return; // the counters are in memory there
      const dump = JSON.stringify([
        (await db.query('select * from rate_limits')).rows,
        (await db.query('select * from ws_leases')).rows,
      ]);
      assert.doesNotMatch(dump, /example\.test|198\.51\.100/);
      assert.match(dump, /signin-fail-addr:[0-9a-f]{64}/);
    });
  });
}
