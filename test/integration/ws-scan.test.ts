/**
 * The scanning channel end to end: a real WebSocket client → the app on a real port →
 * a private Dovecot over TLS with a generated mailbox whose ground truth we know.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { PROTOCOL_VERSION } from '../../src/channel/protocol.ts';
import { byMailbox, generateMailbox, type MailboxTruth } from '../fixtures/mail-generator.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { trustTestCa } from '../helpers/tls-ca.ts';
import { connectWs, type Msg, type WsClient } from '../helpers/ws-client.ts';

const ORIGIN = 'http://127.0.0.1:3999';
const PASSWORD = 'correct horse battery staple';

let dovecot: Dovecot;
let t: TestApp;
let wsUrl: string;
let truth: MailboxTruth;
const clients: WsClient[] = [];

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function client(origin = ORIGIN) {
  const c = await connectWs(wsUrl, origin);
  clients.push(c);
  await c.next('ready');
  return c;
}

const scanMsg = (user: string, extra: Record<string, unknown> = {}) => ({
  type: 'scan',
  provider: 'custom',
  email: user,
  password: PASSWORD,
  host: '127.0.0.1',
  port: dovecot.imapsPort,
  tls: 'implicit',
  ...extra,
});

let unreachable: number;

before(async () => {
  trustTestCa();
  const gen = generateMailbox({ seed: 11, lists: 24, messagesPerList: [2, 14], plain: 30, nasty: true });
  truth = gen.truth;
  const boxes = byMailbox(gen.messages);
  const many = generateMailbox({ seed: 5, lists: 60, messagesPerList: [20, 40], plain: 0, nasty: false });
  const users = [
    { user: 'alice@example.test', password: PASSWORD, mailboxes: boxes },
    { user: 'quota@example.test', password: PASSWORD, mailboxes: { INBOX: boxes.INBOX ?? [] } },
    { user: 'empty@example.test', password: PASSWORD, mailboxes: {} },
    { user: 'big@example.test', password: PASSWORD, mailboxes: { INBOX: many.messages } },
  ];
  for (let i = 0; i < 4; i++)
    users.push({ user: `user${i}@example.test`, password: PASSWORD, mailboxes: { INBOX: boxes.INBOX ?? [] } });
  dovecot = await startDovecot({ users });
  unreachable = await closedPort();
  t = await startTestApp({
    env: {
      BASE_URL: ORIGIN,
      OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${dovecot.imapsPort},127.0.0.1:${dovecot.imapPort},127.0.0.1:${unreachable}`,
    },
    runtime: { worker: false, channel: { batchSize: 40 } },
  });
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  wsUrl = `${address.replace('http', 'ws')}/ws`;
});

after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await t.close();
  await dovecot.stop();
});

describe('scanning a mailbox over /ws', () => {
  test('greets with the protocol version, the daily limit and a session of its own', async () => {
    const a = await connectWs(wsUrl, ORIGIN);
    const b = await connectWs(wsUrl, ORIGIN);
    clients.push(a, b);
    const ready = await a.next('ready');
    const other = await b.next('ready');
    assert.deepEqual(Object.keys(ready).sort(), ['daily_limit', 'expires_at', 'protocol', 'session', 'type']);
    assert.equal(ready.protocol, PROTOCOL_VERSION);
    assert.equal(ready.daily_limit, 3);
    // 256 random bits, base64url: at least the 128 bits asked for, and never the same twice
    assert.match(ready.session, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(ready.session, other.session);
    const left = Date.parse(ready.expires_at) - Date.now();
    assert.ok(left > 59 * 60_000 && left <= 60 * 60_000, `expires in ${left} ms`);
  });

  test('a full scan reads INBOX and Archive and finds exactly the lists of the ground truth, with their counts and methods', async () => {
    const c = await client();
    c.send({ type: 'quota', email: 'alice@example.test' });
    assert.equal((await c.next('quota')).scans_left, 3);
    c.send(scanMsg('alice@example.test'));
    const done = await c.next('done', 60_000);
    assert.equal(done.cancelled, false);
    const read = ['INBOX', 'Archive']; // no \All here: INBOX and the \Archive folder, not Junk
    assert.deepEqual(
      done.mailboxes,
      read.map((path) => ({ path, messages: truth.perMailbox[path] })),
    );
    const sum = (l: MailboxTruth['lists'][number], k: 'count' | 'seen') =>
      read.reduce((n, b) => n + (l.perMailbox[b]?.[k] ?? 0), 0);
    const found = truth.lists.filter((l) => sum(l, 'count') > 0);
    assert.equal(done.scanned, truth.perMailbox.INBOX! + truth.perMailbox.Archive!);
    assert.equal(done.subscriptions, found.length);

    const latest = new Map<string, Msg>();
    for (const m of c.all('subscription')) latest.set(m.subscription.id, m.subscription);
    const byKey = new Map([...latest.values()].map((s) => [s.list_key, s]));
    assert.deepEqual([...byKey.keys()].sort(), found.map((l) => l.key).sort());
    for (const l of found) {
      const s = byKey.get(l.key)!;
      assert.equal(s.count, sum(l, 'count'), `${l.key} count`);
      assert.equal(s.read_rate, Math.round((sum(l, 'seen') / sum(l, 'count')) * 100) / 100, `${l.key} read rate`);
      assert.equal(s.sender.address, l.from.toLowerCase());
      assert.equal(Boolean(s.methods.one_click), Boolean(l.oneClick), `${l.key} one-click`);
      if (l.oneClick) assert.equal(s.methods.one_click, l.oneClick);
      assert.equal(s.one_click_withheld, l.oneClickWithheld, `${l.key} one-click withheld`);
      assert.deepEqual(
        s.methods.mailto.map((m: { uri: string }) => m.uri).sort(),
        [...l.mailto].sort().slice(0, 5),
        `${l.key} mailto`,
      );
      if (l.service) assert.equal(s.service?.slug, l.service, `${l.key} service`);
      if (l.dkimFail) assert.equal(s.auth.dkim, 'fail');
    }
  });

  test('progress covers every phase and the quota is re-sent when the scan starts', async () => {
    const c = await client();
    c.send(scanMsg('user0@example.test'));
    const quota = await c.next('quota');
    assert.equal(quota.scans_left, 2);
    assert.match(quota.resets_at, /T00:00:00.000Z$/);
    await c.next('done', 60_000);
    const phases = new Set(c.all('progress').map((p) => p.phase));
    for (const p of ['connecting', 'listing', 'searching', 'fetching', 'finishing']) assert.ok(phases.has(p), p);
    const last = c.all('progress').at(-1)!;
    assert.equal(last.done, last.total);
  });

  test('subscriptions stream from the first batch and are re-sent with the same id as they grow', async () => {
    const c = await client();
    c.send(scanMsg('big@example.test'));
    const first = await c.next('subscription');
    const done = await c.next('done', 60_000);
    assert.ok(done.scanned > 1000);
    const firstIndex = c.messages.indexOf(first);
    const doneIndex = c.messages.indexOf(done);
    assert.ok(firstIndex < doneIndex - 10, 'results arrive long before the end');
    const counts = new Map<string, number[]>();
    for (const m of c.all('subscription'))
      counts.set(m.subscription.id, [...(counts.get(m.subscription.id) ?? []), m.subscription.count]);
    const grown = [...counts.values()].filter((seq) => seq.length > 1);
    assert.ok(grown.length > 0, 'some subscriptions were sent more than once');
    for (const seq of grown) for (let i = 1; i < seq.length; i++) assert.ok(seq[i]! > seq[i - 1]!);
    assert.equal(counts.size, done.subscriptions);
  });

  test('Junk and Gmail-style roles are understood when asked for', async () => {
    const c = await client();
    c.send(scanMsg('user1@example.test', { mailboxes: ['INBOX', 'nope'] }));
    const err = await c.next('error');
    assert.equal(err.code, 'MAILBOX_NOT_FOUND');
    c.send(scanMsg('alice@example.test', { mailboxes: ['junk'] }));
    const done = await c.next('done', 60_000);
    assert.equal(done.scanned, truth.perMailbox.Junk ?? 0);
    for (const m of c.all('subscription')) assert.equal(m.subscription.junk_only, true);
  });

  test('an empty mailbox finishes with nothing found', async () => {
    const c = await client();
    c.send(scanMsg('empty@example.test'));
    const done = await c.next('done');
    assert.equal(done.scanned, 0);
    assert.equal(done.subscriptions, 0);
  });

  test('STARTTLS on the plain port works, with the certificate verified', async () => {
    const c = await client();
    c.send(scanMsg('user2@example.test', { port: dovecot.imapPort, tls: 'starttls' }));
    const done = await c.next('done', 60_000);
    assert.ok(done.subscriptions > 0);
  });
});

describe('failures a person can act on', () => {
  test('a wrong password is AUTH_FAILED and costs no scan', async () => {
    const c = await client();
    c.send({ ...scanMsg('quota@example.test'), password: 'wrong' });
    const err = await c.next('error');
    assert.equal(err.code, 'AUTH_FAILED');
    assert.ok(!JSON.stringify(c.messages).includes('wrong"'), 'the password is not echoed');
    c.send({ type: 'quota', email: 'quota@example.test' });
    assert.equal((await c.next('quota')).scans_left, 3);
  });

  test('after the daily limit, SCAN_QUOTA_EXCEEDED with the reset time', async () => {
    const c = await client();
    for (let i = 0; i < 3; i++) {
      c.send(scanMsg('quota@example.test'));
      await c.next('done', 60_000);
    }
    c.send(scanMsg('quota@example.test'));
    const err = await c.next('error');
    assert.equal(err.code, 'SCAN_QUOTA_EXCEEDED');
    assert.match(err.resets_at, /T00:00:00.000Z$/);
  });

  test('a closed port is CONNECT_FAILED within the timeout', async () => {
    const c = await client();
    const started = Date.now();
    c.send(scanMsg('user3@example.test', { port: unreachable }));
    const err = await c.next('error', 15_000);
    assert.equal(err.code, 'CONNECT_FAILED');
    assert.ok(Date.now() - started < 12_000);
  });

  test('a private host not allowed by configuration is HOST_NOT_ALLOWED, with no connection', async () => {
    const c = await client();
    c.send(scanMsg('user3@example.test', { host: '10.1.2.3', port: 993 }));
    assert.equal((await c.next('error')).code, 'HOST_NOT_ALLOWED');
    c.send(scanMsg('user3@example.test', { host: '127.0.0.1', port: 143 }));
    assert.equal((await c.next('error')).code, 'HOST_NOT_ALLOWED');
  });
});

describe('the channel itself', () => {
  test('malformed and unknown messages get INVALID_MESSAGE and the connection stays usable', async () => {
    const c = await client();
    c.sendRaw('{not json');
    assert.equal((await c.next('error')).code, 'INVALID_MESSAGE');
    c.send({ type: 'dance' });
    assert.equal((await c.next('error')).code, 'INVALID_MESSAGE');
    c.send({ type: 'scan', provider: 'custom', email: 'x@example.test', password: 'p' });
    const missing = await c.next('error');
    assert.equal(missing.code, 'INVALID_MESSAGE');
    assert.match(missing.message, /host/);
    c.sendRaw(Buffer.from([1, 2, 3]));
    assert.equal((await c.next('error')).code, 'INVALID_MESSAGE');
    c.send({ type: 'quota', email: 'alice@example.test' });
    assert.equal((await c.next('quota')).type, 'quota');
  });

  test('a frame over the size limit closes the connection with 1009', async () => {
    const c = await client();
    c.sendRaw(JSON.stringify({ type: 'quota', email: `${'a'.repeat(70_000)}@example.test` }));
    assert.equal((await c.closed).code, 1009);
  });

  test('a second scan while one runs is BUSY; cancel stops the scan', async () => {
    const c = await client();
    c.send(scanMsg('big@example.test'));
    c.send(scanMsg('big@example.test'));
    assert.equal((await c.next('error')).code, 'BUSY');
    await c.next('subscription');
    c.send({ type: 'cancel' });
    const done = await c.next('done', 30_000);
    assert.equal(done.cancelled, true);
    assert.ok(done.scanned < 1000, `stopped early at ${done.scanned}`);
  });

  test('a cross-site origin is refused before the upgrade', async () => {
    await assert.rejects(connectWs(wsUrl, 'https://evil.example'), /HTTP 403/);
  });
});
