/**
 * SIGTERM drains the real service (src/channel/drain.ts, main.ts): /readyz turns 503 and new
 * /ws connections are refused at once; an idle connection is told SERVICE_RESTARTING and closed
 * with 1012 at once; a running scan finishes and reports; an unsubscribe batch past the drain
 * deadline stops sending, reports every id once (what was sent, and what was not), and only
 * then is its connection told and closed. Real peers: Dovecot, an HTTPS one-click endpoint
 * that holds its answers, PostgreSQL.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { listMessages } from '../fixtures/list-mail.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { type HttpsTarget, startHttpsTarget } from '../helpers/https-target.ts';
import { allowLoopback } from '../helpers/loopback.ts';
import { createTestDatabase } from '../helpers/postgres.ts';
import { type ServerProcess, startServer } from '../helpers/server-process.ts';
import { caPath, trustTestCa } from '../helpers/tls-ca.ts';
import { connectWs, type WsClient } from '../helpers/ws-client.ts';

const USER = 'drain@example.test';
const PASSWORD = 'app-password-drain';
const LISTS = 12;

let dovecot: Dovecot;
let target: HttpsTarget;
const held: ServerResponse[] = [];
let holding = false;
let db: { url: string; drop: () => Promise<void> };

before(async () => {
  trustTestCa();
  target = await startHttpsTarget((_path, res) => {
    if (holding) held.push(res);
    else res.writeHead(200).end('ok');
  });
  const inbox = Array.from({ length: LISTS }, (_, i) =>
    listMessages({ from: `news${i}@sender${i}.example`, listId: `l${i}.example`, oneClick: `${target.origin}/u/${i}` }),
  ).flat();
  dovecot = await startDovecot({ users: [{ user: USER, password: PASSWORD, mailboxes: { INBOX: inbox } }] });
  db = await createTestDatabase();
});
after(async () => {
  await dovecot?.stop();
  await target?.close();
  await db?.drop();
});

async function service(drainSeconds: number): Promise<{ server: ServerProcess; origin: string; ws: string }> {
  const server = await startServer(
    {
      DATABASE_URL: db.url,
      DRAIN_SECONDS: String(drainSeconds),
      NODE_EXTRA_CA_CERTS: caPath,
      OUTBOUND_ALLOW_HOSTS: allowLoopback(dovecot.imapsPort, target.port),
    },
    180_000,
  );
  return { server, origin: server.url, ws: `${server.url.replace('http', 'ws')}/ws` };
}

const scanMessage = () => ({
  type: 'scan',
  provider: 'custom',
  email: USER,
  password: PASSWORD,
  host: '127.0.0.1',
  port: dovecot.imapsPort,
  tls: 'implicit',
});

const restartedThenClosed = async (c: WsClient) => {
  const closed = await c.closed;
  assert.equal(closed.code, 1012);
  assert.equal(closed.reason, 'service restart');
  const last = c.messages.at(-1)!;
  assert.equal(last.type, 'error');
  assert.equal(last.code, 'SERVICE_RESTARTING');
};

describe('SIGTERM drains the service', () => {
  test('a batch past the deadline: every id reported once, nothing sent unreported, then 1012', async () => {
    const { server, origin, ws } = await service(2);
    const c = await connectWs(ws);
    await c.next('ready');
    c.send(scanMessage());
    const done = await c.next('done', 60_000);
    assert.equal(done.subscriptions, LISTS);
    // a subscription is sent again as the scan learns more: its id is what counts
    const ids = [...new Set(c.all('subscription').map((m) => m.subscription.id as string))];
    assert.equal(ids.length, LISTS);
    const idle = await connectWs(ws);
    await idle.next('ready');

    holding = true;
    c.send({ type: 'unsubscribe', ids });
    // the per-host cap lets 4 requests out; the other 8 wait for a slot
    const until = Date.now() + 30_000;
    while (target.seen.length < 4 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    assert.equal(target.seen.length, 4);

    server.child.kill('SIGTERM');
    const sigterm = Date.now();
    // at once: not ready, no new connection, the idle one told and closed
    let ready = await fetch(`${origin}/readyz`);
    for (let i = 0; i < 50 && ready.status !== 503; i++) {
      await new Promise((r) => setTimeout(r, 20));
      ready = await fetch(`${origin}/readyz`);
    }
    assert.equal(ready.status, 503);
    assert.equal(((await ready.json()) as { code: string }).code, 'UNAVAILABLE');
    await assert.rejects(connectWs(ws), /HTTP 503/);
    await restartedThenClosed(idle);
    assert.ok(Date.now() - sigterm < 1500, 'the idle connection was not kept waiting');

    // the deadline passes: the 8 waiting ids are reported as not sent, the 4 under way finish
    const notSent = await Promise.all(Array.from({ length: LISTS - 4 }, () => c.next('unsubscribe_result', 15_000)));
    assert.ok(Date.now() - sigterm >= 1900, 'nothing was stopped before the deadline');
    for (const r of notSent) assert.equal(r.status, 'failed');
    assert.equal(c.all('unsubscribe_done').length, 0, 'the batch waits for the requests under way');
    holding = false;
    for (const res of held.splice(0)) res.writeHead(200).end('ok');
    const summary = await c.next('unsubscribe_done', 15_000);
    await restartedThenClosed(c);

    const results = c.all('unsubscribe_result');
    assert.deepEqual(results.map((r) => r.id).sort(), [...ids].sort(), 'every id once');
    const sent = results.filter((r) => r.status === 'unsubscribed');
    assert.equal(sent.length, 4);
    assert.equal(summary.counts.unsubscribed, 4);
    assert.equal(summary.counts.failed, LISTS - 4);
    // nothing sent twice, and nothing sent that was not reported
    assert.equal(target.seen.length, 4);
    assert.equal(new Set(target.seen.map((s) => s.url)).size, 4);
    assert.equal(await server.stop(), 0);
    const drained = server.stdout.map((l) => JSON.parse(l)).find((l) => l.msg === 'drained');
    assert.equal(drained.stopped, 1);
  });

  test('a scan running at SIGTERM finishes and reports before the 1012', async () => {
    target.seen.length = 0;
    const { server, ws } = await service(20);
    const c = await connectWs(ws);
    await c.next('ready');
    c.send(scanMessage());
    await c.next('progress', 60_000);
    server.child.kill('SIGTERM');
    const done = await c.next('done', 60_000);
    assert.equal(done.cancelled, false);
    assert.equal(new Set(c.all('subscription').map((m) => m.subscription.id)).size, done.subscriptions);
    await restartedThenClosed(c);
    assert.equal(await server.stop(), 0);
    assert.equal(target.seen.length, 0);
  });
});
