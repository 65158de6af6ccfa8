/**
 * Faults with the real peers (docs/security.md, "Faults"): the mail server dies or the network
 * to it drops in the middle of a scan, an SMTP server starts refusing in the middle of a batch,
 * the database stops for a few seconds. Each time the person gets a clear message, no
 * unsubscribe request is lost or sent twice, and the service recovers by itself. (A shutdown
 * during a scan and a batch: test/integration/shutdown.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listMessages } from '../fixtures/list-mail.ts';
import { generateMailbox } from '../fixtures/mail-generator.ts';
import { listenWs, startTestApp, type TestApp } from '../helpers/app.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { allowLoopback } from '../helpers/loopback.ts';
import { type PgServer, startPostgres } from '../helpers/pg-server.ts';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';
import { startTcpRelay, type TcpRelay } from '../helpers/tcp-relay.ts';
import { trustTestCa } from '../helpers/tls-ca.ts';
import { connectWs, type Msg, type WsClient } from '../helpers/ws-client.ts';

const ORIGIN = 'http://127.0.0.1:3999';
let dovecot: Dovecot;
let t: TestApp;
let wsUrl: string;

before(async () => {
  trustTestCa();
  const big = generateMailbox({ seed: 3, lists: 80, messagesPerList: [30, 50], plain: 0, nasty: false });
  dovecot = await startDovecot({
    users: [{ user: 'bob@example.test', password: 'pw', mailboxes: { INBOX: big.messages } }],
  });
  t = await startTestApp({
    env: { BASE_URL: ORIGIN, OUTBOUND_ALLOW_HOSTS: allowLoopback(dovecot.imapsPort) },
    runtime: { worker: false, channel: { batchSize: 10 } },
  });
  wsUrl = await listenWs(t);
});
after(async () => {
  await t.close();
  await dovecot.stop();
});

const tcpSockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;

test('Dovecot killed mid-scan: an error reaches the client, the server lives on, no socket leaks', async () => {
  const c = await connectWs(wsUrl, ORIGIN);
  await c.next('ready');
  const baseline = tcpSockets();
  c.send({
    type: 'scan',
    provider: 'custom',
    email: 'bob@example.test',
    password: 'pw',
    host: '127.0.0.1',
    port: dovecot.imapsPort,
    tls: 'implicit',
  });
  await c.next('subscription', 30_000);
  await dovecot.kill();
  const killedAt = Date.now();
  const err = await c.next('error', 30_000);
  assert.ok(Date.now() - killedAt < 5000, `error after ${Date.now() - killedAt} ms`);
  assert.equal(err.code, 'SCAN_FAILED');
  assert.equal(c.all('done').length, 0);

  // the same connection still answers, and so does a new one
  c.send({ type: 'quota', email: 'bob@example.test' });
  assert.equal((await c.next('quota')).scans_left, 2);
  const other = await connectWs(wsUrl, ORIGIN);
  await other.next('ready');
  await other.close();

  const until = Date.now() + 5000;
  while (tcpSockets() > baseline && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  assert.equal(tcpSockets(), baseline, 'the IMAP socket was closed');
  await c.close();
});

describe('the network, an SMTP server and the database failing', () => {
  const USER = 'faults@example.test';
  let mail: Dovecot;
  let relay: TcpRelay;
  let sink: SmtpSink;
  let pgServer: PgServer;
  let app: TestApp;
  let url: string;

  before(async () => {
    const big = generateMailbox({ seed: 5, lists: 60, messagesPerList: [30, 40], plain: 0, nasty: false });
    const mailOnly = Array.from({ length: 6 }, (_, i) =>
      listMessages({
        from: `news${i}@mailonly${i}.example`,
        mailto: `mailto:leave${i}@mailonly${i}.example`,
        count: 1,
      }),
    ).flat();
    mail = await startDovecot({
      users: [
        { user: USER, password: 'pw', mailboxes: { INBOX: big.messages } },
        { user: 'mailer@example.test', password: 'pw', mailboxes: { INBOX: mailOnly } },
      ],
    });
    relay = await startTcpRelay({ host: '127.0.0.1', port: mail.imapsPort });
    sink = await startSmtpSink({ user: 'mailer@example.test', password: 'pw', tls: 'implicit' });
    pgServer = await startPostgres();
    app = await startTestApp({
      databaseUrl: pgServer.url,
      env: {
        BASE_URL: ORIGIN,
        OUTBOUND_ALLOW_HOSTS: allowLoopback(relay.port, sink.port),
        SCAN_DAILY_LIMIT: '50',
      },
      runtime: { worker: false, channel: { batchSize: 10 } },
    });
    url = await listenWs(app);
  });
  after(async () => {
    await app?.close();
    await pgServer?.close();
    await sink?.close();
    await relay?.close();
    await mail?.stop();
  });

  const client = async () => {
    const c = await connectWs(url, ORIGIN);
    await c.next('ready');
    return c;
  };
  const scanMsg = (email: string) => ({
    type: 'scan',
    provider: 'custom',
    email,
    password: 'pw',
    host: '127.0.0.1',
    port: relay.port,
    tls: 'implicit',
    smtp: { host: '127.0.0.1', port: sink.port, tls: 'implicit' },
  });
  /** The first message of one of `types` from index `from` on (after what was sent next). */
  async function first(c: WsClient, types: string[], from: number, timeoutMs = 60_000): Promise<Msg> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const m = c.messages.slice(from).find((x) => types.includes(x.type));
      if (m) return m;
      if (Date.now() > until) throw new Error(`no ${types.join(' or ')} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  /** Sends a scan; its end: `done` or an `error`. */
  const scan = (c: WsClient, email: string) => {
    const from = c.messages.length;
    c.send(scanMsg(email));
    return first(c, ['done', 'error'], from);
  };

  test('the network to the mail server drops mid-scan: SCAN_FAILED at once, and the next scan works by itself', async () => {
    const c = await client();
    const ending = scan(c, USER);
    await c.next('subscription', 30_000);
    relay.cutAll();
    const cutAt = Date.now();
    const end = await ending;
    assert.equal(end.type, 'error');
    assert.equal(end.code, 'SCAN_FAILED');
    assert.ok(Date.now() - cutAt < 5000, `error after ${Date.now() - cutAt} ms`);
    // the same connection, nothing reset by anyone: the next scan reaches the end
    const again = await scan(c, USER);
    assert.equal(again.type, 'done');
    assert.ok(again.scanned > 0);
    await c.close();
  });

  test('an SMTP server refusing mid-batch: those are failed with the reason, none is lost or sent twice, and a retry sends exactly them', async () => {
    const c = await client();
    assert.equal((await scan(c, 'mailer@example.test')).type, 'done');
    const ids = [...new Set(c.all('subscription').map((m) => m.subscription.id as string))];
    assert.equal(ids.length, 6);
    sink.refuse = 3; // three go through, then 451 for every recipient
    c.send({ type: 'unsubscribe', ids });
    const done = await c.next('unsubscribe_done', 30_000);
    const results = c.all('unsubscribe_result');
    assert.deepEqual(results.map((r) => r.id).sort(), [...ids].sort(), 'one result per subscription');
    assert.deepEqual(done.counts, { unsubscribed: 0, email_sent: 3, open_link: 0, skipped: 0, failed: 3 });
    const failed = results.filter((r) => r.status === 'failed');
    for (const r of failed) assert.match(r.detail, /451|temporar|try again/i);
    assert.equal(sink.messages.length, 3);

    sink.refuse = null; // the server takes mail again
    c.send({ type: 'unsubscribe', ids: failed.map((r) => r.id) });
    const retry = await c.next('unsubscribe_done', 30_000);
    assert.equal(retry.counts.email_sent, 3);
    const recipients = sink.messages.flatMap((m) => m.to).sort();
    assert.deepEqual(
      recipients,
      Array.from({ length: 6 }, (_, i) => `leave${i}@mailonly${i}.example`).sort(),
      'every list mailed exactly once',
    );
    await c.close();
  });

  test('the database stopped for a few seconds: a clear refusal without touching the mail server, then recovery by itself', async () => {
    const c = await client();
    await pgServer.stop();
    try {
      c.send({ type: 'quota', email: USER });
      const down = await c.next('error');
      assert.equal(down.code, 'SERVICE_UNAVAILABLE');
      assert.ok(down.retry_after > 0);
      const connections = relay.connections;
      assert.equal((await scan(c, USER)).code, 'SERVICE_UNAVAILABLE');
      assert.equal(relay.connections, connections, 'the mail server was not contacted');
      // the HTTP API says the same, with Retry-After; the process stays up
      const res = await app.app.inject({
        method: 'POST',
        url: '/api/v1/link-check',
        payload: { slug: 'netflix' },
      });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().code, 'UNAVAILABLE');
      assert.ok(Number(res.headers['retry-after']) > 0);
      assert.equal((await app.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
      await new Promise((r) => setTimeout(r, 2000));
    } finally {
      await pgServer.start();
    }
    // nobody restarts the service: the same connection works again once the database is back
    let scansLeft: number | null = null;
    for (let i = 0; i < 60 && scansLeft === null; i++) {
      const from = c.messages.length;
      c.send({ type: 'quota', email: USER });
      const m = await first(c, ['quota', 'error'], from);
      if (m.type === 'quota') scansLeft = m.scans_left;
      else await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok(scansLeft !== null && scansLeft > 0, 'the quota answers again');
    assert.equal((await scan(c, USER)).type, 'done');
    const res = await app.app.inject({ method: 'POST', url: '/api/v1/link-check', payload: { slug: 'netflix' } });
    assert.equal(res.statusCode, 202);
    await c.close();
  });
});
