/**
 * The session store and engine without any WebSocket, as an agent's hand-off would drive them:
 * ids, who receives the messages, and when a session ends. Scans against a real mail server
 * are in test/integration/ws-session.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../config.ts';
import { createAttemptLimits } from '../limits/attempt-limits.ts';
import { createLogger } from '../log.ts';
import { createOutboundGuard } from '../outbound/guard.ts';
import { createScanQuota } from '../quota/scan-quota.ts';
import { type Db, openPglite } from '../storage/db.ts';
import { migrate } from '../storage/migrate.ts';
import type { ServerMessage } from './protocol.ts';
import type { SessionOwner } from './session.ts';
import { createSessionStore, type SessionLimits } from './session-store.ts';

let db: Db;
before(async () => {
  db = await openPglite(undefined);
  await migrate(db);
});
after(() => db.close());

async function store(limits: Partial<SessionLimits> = {}) {
  return createSessionStore(
    {
      guard: createOutboundGuard(),
      quota: await createScanQuota(db, 3),
      attempts: await createAttemptLimits(db, loadConfig({}).limits),
      logger: createLogger('silent'),
      matchService: () => null,
      senders: { domains: [], match: () => null },
      scanTimeoutMs: 60_000,
      batchSize: 100,
      caps: loadConfig({}).scanCaps,
      oauth: null,
    },
    { lifetimeMs: 60_000, keepMs: 60_000, ...limits },
  );
}

function owner() {
  const got: ServerMessage[] = [];
  const events: string[] = [];
  const o: SessionOwner = {
    send: (m) => got.push(m),
    ended: () => events.push('ended'),
    replaced: () => events.push('replaced'),
  };
  return { o, got, events };
}

describe('scan sessions', () => {
  test('ids are 256 random bits in base64url, never repeated', async () => {
    const s = await store();
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i++) ids.add(s.open().id);
    assert.equal(ids.size, 1000);
    for (const id of ids) assert.match(id, /^[A-Za-z0-9_-]{43}$/);
    s.close();
  });

  test('commands answer the owner; without one the session still works', async () => {
    const s = await store();
    const session = s.open();
    await session.quota('nobody@example.test'); // no owner: nothing to send to, no failure
    const a = owner();
    session.attach(a.o);
    await session.quota('nobody@example.test');
    assert.deepEqual(
      a.got.map((m) => m.type),
      ['quota'],
    );
    session.cancel();
    assert.deepEqual(a.got.at(-1), { type: 'error', code: 'INVALID_MESSAGE', message: 'cancel: nothing is running' });
    s.close();
  });

  test('an unsubscribe before any scan is refused as out of order', async () => {
    const s = await store();
    const session = s.open();
    const a = owner();
    session.attach(a.o);
    await session.unsubscribe({ type: 'unsubscribe', ids: ['x'] }, { ip: '127.0.0.1' });
    assert.equal(a.got[0]?.type === 'error' && a.got[0].code, 'INVALID_MESSAGE');
    s.close();
  });

  test('a new owner replaces the old one, which is told; only the holder can let go', async () => {
    const s = await store();
    const session = s.open();
    const a = owner();
    const b = owner();
    session.attach(a.o);
    session.attach(b.o);
    assert.deepEqual(a.events, ['replaced']);
    assert.equal(session.detach(a.o), false);
    assert.equal(session.attached, true);
    assert.equal(session.detach(b.o), true);
    assert.equal(session.attached, false);
    s.close();
  });

  test('a session let go while holding nothing ends at once', async () => {
    const s = await store();
    const session = s.open();
    assert.equal(s.find(session.id), session);
    s.release(session);
    assert.equal(session.ended, true);
    assert.equal(s.find(session.id), null);
    assert.equal(s.size, 0);
  });

  test('at its hard limit a session ends and its owner is told', async () => {
    const s = await store({ lifetimeMs: 30 });
    const session = s.open();
    const a = owner();
    session.attach(a.o);
    const left = session.expiresAt.getTime() - Date.now();
    assert.ok(left > 0 && left <= 30);
    await new Promise<void>((resolve) => {
      a.o.ended = () => resolve();
    });
    assert.equal(session.ended, true);
    assert.equal(s.find(session.id), null);
    assert.deepEqual(session.replay(), []);
  });
});
