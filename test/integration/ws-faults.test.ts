/**
 * The mail server dies in the middle of a scan: the person gets an error, the service
 * stays up, and no socket is left behind.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateMailbox } from '../fixtures/mail-generator.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { trustTestCa } from '../helpers/tls-ca.ts';
import { connectWs } from '../helpers/ws-client.ts';

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
    env: { BASE_URL: ORIGIN, OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${dovecot.imapsPort}` },
    runtime: { worker: false, channel: { batchSize: 10 } },
  });
  wsUrl = `${(await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws')}/ws`;
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
