/**
 * Sessions that outlive their connection: a real WebSocket client, the app on a real port, a
 * private Dovecot, and a one-click endpoint whose answers the test holds back and releases.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { listMessages } from '../fixtures/list-mail.ts';
import { byMailbox, generateMailbox } from '../fixtures/mail-generator.ts';
import { listenWs, startTestApp, type TestApp } from '../helpers/app.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { type HttpsTarget, startHttpsTarget } from '../helpers/https-target.ts';
import { allowLoopback } from '../helpers/loopback.ts';
import { trustTestCa } from '../helpers/tls-ca.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { connectWs, type Msg, type WsClient } from '../helpers/ws-client.ts';

const ORIGIN = 'http://127.0.0.1:3999';
const USER = 'sam@example.test';
const PASSWORD = 'app-password-sessions';
const HELD = ['b', 'c', 'd', 'e'];

let dovecot: Dovecot;
let target: HttpsTarget;
let t: TestApp;
let short: TestApp;
let idle: TestApp;
let wsUrl: string;
let shortUrl: string;
let idleUrl: string;
const clients: WsClient[] = [];
/** one-click answers waiting for the test to release them, by path */
const waiting = new Map<string, () => void>();

before(async () => {
  trustTestCa();
  target = await startHttpsTarget((path: string, res: ServerResponse) => {
    const answer = () => res.writeHead(200).end('ok');
    if (path.startsWith('/hold/')) waiting.set(path, answer);
    else answer();
  });
  const o = target.origin;
  const own = [
    ...listMessages({ from: 'now@a.example', oneClick: `${o}/now/a` }),
    ...HELD.flatMap((x) => listMessages({ from: `held@${x}.example`, oneClick: `${o}/hold/${x}` })),
  ];
  const gen = generateMailbox({ seed: 21, lists: 12, messagesPerList: [2, 8], plain: 10, nasty: false });
  const inbox = [...(byMailbox(gen.messages).INBOX ?? []), ...own];
  dovecot = await startDovecot({
    users: ['', '2', '3', '4', '5'].map((n) => ({
      user: `sam${n}@example.test`,
      password: PASSWORD,
      mailboxes: { INBOX: inbox },
    })),
  });
  const env = {
    BASE_URL: ORIGIN,
    OUTBOUND_ALLOW_HOSTS: allowLoopback(dovecot.imapsPort, target.port),
  };
  t = await startTestApp({ env, runtime: { worker: false, channel: { pingMs: 1000 } } });
  short = await startTestApp({ env, runtime: { worker: false, channel: { keepMs: 300 } } });
  idle = await startTestApp({ env, runtime: { worker: false, channel: { idleMs: 2000 } } });
  const url = async (app: TestApp) => await listenWs(app);
  wsUrl = await url(t);
  shortUrl = await url(short);
  idleUrl = await url(idle);
});

after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const release of waiting.values()) release();
  await t.close();
  await short.close();
  await idle.close();
  await dovecot.stop();
  await target.close();
});

async function client(url = wsUrl): Promise<{ c: WsClient; ready: Msg }> {
  const c = await connectWs(url, ORIGIN);
  clients.push(c);
  return { c, ready: await c.next('ready') };
}

const scanMsg = (user = USER) => ({
  type: 'scan',
  provider: 'custom',
  email: user,
  password: PASSWORD,
  host: '127.0.0.1',
  port: dovecot.imapsPort,
  tls: 'implicit',
});

/** The newest state of each subscription a client received. */
function latest(c: WsClient): Map<string, Msg> {
  const out = new Map<string, Msg>();
  for (const m of c.all('subscription')) out.set(m.subscription.id, m.subscription);
  return out;
}

/** Waits (bounded) until `check` holds: the server's own state, never a fixed sleep. */
const until = (check: () => boolean, what: string) =>
  waitFor(async () => (check() ? true : undefined)).catch((err: Error) => {
    throw new Error(`${what}: ${err.message}`);
  });

describe('resuming a session over a new connection', () => {
  test('after the socket closed, resume gives the same subscriptions and done, each once, at no scan', async () => {
    const { c: a, ready } = await client();
    a.send(scanMsg());
    const startedQuota = await a.next('quota', 30_000);
    const done = await a.next('done', 60_000);
    const before = latest(a);
    await a.close();

    const { c: b, ready: own } = await client();
    assert.notEqual(own.session, ready.session);
    b.send({ type: 'resume', session: ready.session });
    const resumed = await b.next('resumed');
    assert.deepEqual(resumed, { type: 'resumed', session: ready.session, expires_at: ready.expires_at, running: null });
    assert.deepEqual(await b.next('done'), done);
    const subs = b.all('subscription');
    assert.equal(subs.length, before.size, 'each subscription once');
    assert.deepEqual(latest(b), before);
    const order = b.messages.map((m) => m.type);
    assert.ok(order.indexOf('resumed') < order.indexOf('subscription'));
    assert.ok(order.lastIndexOf('subscription') < order.indexOf('done'));

    b.send({ type: 'quota', email: USER });
    assert.equal((await b.next('quota')).scans_left, startedQuota.scans_left, 'resuming cost no scan');
  });

  test('an unsubscribe batch dropped midway: after resume every result arrives exactly once', async () => {
    const user = 'sam2@example.test';
    const { c: a, ready } = await client();
    a.send(scanMsg(user));
    await a.next('done', 60_000);
    const ids = [...latest(a).values()].filter((s) => /^(now|held)@/.test(s.sender.address)).map((s) => s.id);
    assert.equal(ids.length, 1 + HELD.length);
    a.send({ type: 'unsubscribe', ids });
    const first = await a.next('unsubscribe_result', 30_000);
    await until(() => waiting.size === HELD.length, 'every held one-click request');
    const session = t.runtime.sessions.find(ready.session)!;
    a.ws.terminate(); // the connection drops without a goodbye
    await until(() => !session.attached, 'the server to notice');

    // One finishes while nobody is connected.
    waiting.get('/hold/b')!();
    waiting.delete('/hold/b');
    await until(
      () => session.replay().filter((m) => m.type === 'unsubscribe_result').length === 2,
      'the result while away',
    );

    const { c: b } = await client();
    b.send({ type: 'resume', session: ready.session });
    assert.equal((await b.next('resumed')).running, 'unsubscribe');
    await until(() => b.all('unsubscribe_result').length === 2, 'the replayed results');
    for (const [path, release] of waiting) {
      waiting.delete(path);
      release();
    }
    const batch = await b.next('unsubscribe_done', 30_000);
    const results = b.all('unsubscribe_result');
    assert.deepEqual(results.map((r) => r.id).sort(), [...ids].sort(), 'every result exactly once');
    assert.ok(results.every((r) => r.status === 'unsubscribed'));
    assert.deepEqual(results[0], first, 'the result seen before the drop comes first, unchanged');
    assert.equal(batch.counts.unsubscribed, 1 + HELD.length);
    for (const path of ['/now/a', ...HELD.map((x) => `/hold/${x}`)])
      assert.equal(target.seen.filter((s) => s.url === path).length, 1, `one request to ${path}`);
  });

  test('an unknown session is SESSION_EXPIRED, and the connection stays usable', async () => {
    const { c } = await client();
    c.send({ type: 'resume', session: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    assert.equal((await c.next('error')).code, 'SESSION_EXPIRED');
    c.send({ type: 'quota', email: USER });
    assert.equal((await c.next('quota')).type, 'quota');
  });

  test('resuming a session whose connection still looks open takes it over; the old one is closed', async () => {
    const { c: a, ready } = await client();
    a.send(scanMsg('sam3@example.test'));
    await a.next('done', 60_000);
    const { c: b } = await client();
    b.send({ type: 'resume', session: ready.session });
    await b.next('resumed');
    assert.deepEqual(await a.closed, { code: 4001, reason: 'session resumed elsewhere' });
    b.send({ type: 'cancel' });
    assert.equal((await b.next('error')).code, 'INVALID_MESSAGE', 'nothing running, but the session answers');
  });

  test('the server pings, and a peer that stops answering is dropped with its session kept', async () => {
    const { c, ready } = await client();
    let pings = 0;
    c.ws.on('ping', () => pings++);
    await until(() => pings >= 2, 'two pings');
    c.send(scanMsg('sam4@example.test'));
    await c.next('done', 60_000);
    const socket = (c.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    const session = t.runtime.sessions.find(ready.session)!;
    assert.ok(session.attached);
    socket.pause(); // reads nothing more: pings go unanswered
    await until(() => !session.attached, 'the server to drop the silent peer');
    assert.equal(t.runtime.sessions.find(ready.session), session, 'the session is kept');
    socket.resume();
  });
});

describe('sessions end', () => {
  test('a dropped session expires after its keep time: credentials wiped, resume is SESSION_EXPIRED', async () => {
    const { c: a, ready } = await client(shortUrl);
    a.send(scanMsg('sam5@example.test'));
    await a.next('done', 60_000);
    const session = short.runtime.sessions.find(ready.session)!;
    assert.ok(session.lastScan?.creds.password, 'the scan holds its sign-in while the session lives');
    await a.close();
    await until(() => session.ended, 'the session to expire');
    assert.equal(session.lastScan, null);
    assert.deepEqual(session.replay(), []);
    assert.equal(short.runtime.sessions.find(ready.session), null);
    const { c: b } = await client(shortUrl);
    b.send({ type: 'resume', session: ready.session });
    assert.equal((await b.next('error')).code, 'SESSION_EXPIRED');
  });

  test('idle time counts from the last client message; the idle close keeps the session for a resume', async () => {
    const { c: a, ready } = await client(idleUrl);
    a.send(scanMsg('sam5@example.test'));
    await a.next('done', 60_000);
    const sentAt = Date.now();
    a.send({ type: 'quota', email: USER });
    await a.next('quota');
    assert.deepEqual(await a.closed, { code: 1000, reason: 'idle' });
    assert.ok(Date.now() - sentAt >= 2000, 'not before idleMs after the last message');
    const { c: b } = await client(idleUrl);
    b.send({ type: 'resume', session: ready.session });
    assert.equal((await b.next('resumed')).session, ready.session);
  });
});
