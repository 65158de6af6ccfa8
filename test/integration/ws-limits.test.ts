/**
 * Attempt limits over /ws, on two app instances sharing one PostgreSQL (as behind a load
 * balancer), against a real Dovecot reached through a TCP relay that counts connections: a
 * refusal happens before the mail server is contacted, says when to retry, and holds whichever
 * instance the client reaches. Clients are told apart by X-Forwarded-For (TRUST_PROXY=true).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listMessages } from '../fixtures/list-mail.ts';
import { listenWs, startTestApp, type TestApp } from '../helpers/app.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { allowLoopback } from '../helpers/loopback.ts';
import { createTestDatabase } from '../helpers/postgres.ts';
import { startTcpRelay, type TcpRelay } from '../helpers/tcp-relay.ts';
import { trustTestCa } from '../helpers/tls-ca.ts';
import { connectWs, type WsClient } from '../helpers/ws-client.ts';

const ORIGIN = 'http://127.0.0.1:3999';
const CAROL = 'carol@example.test';
const DAVE = 'dave@example.test';
const PASSWORD = 'right-password';

let dovecot: Dovecot;
let relay: TcpRelay;
let drop: () => Promise<void>;
const apps: TestApp[] = [];
const urls: string[] = [];

before(async () => {
  trustTestCa();
  const lists = [
    ...listMessages({ from: 'a@one.example', http: ['https://one.example/u'] }),
    ...listMessages({ from: 'b@two.example', http: ['https://two.example/u'] }),
    ...listMessages({ from: 'c@three.example', http: ['https://three.example/u'] }),
  ];
  dovecot = await startDovecot({
    users: [
      { user: CAROL, password: PASSWORD, mailboxes: { INBOX: lists } },
      { user: DAVE, password: PASSWORD, mailboxes: { INBOX: lists } },
    ],
  });
  relay = await startTcpRelay({ host: '127.0.0.1', port: dovecot.imapsPort });
  const database = await createTestDatabase();
  drop = database.drop;
  for (let i = 0; i < 2; i++) {
    const t = await startTestApp({
      databaseUrl: database.url,
      env: {
        BASE_URL: ORIGIN,
        OUTBOUND_ALLOW_HOSTS: allowLoopback(relay.port),
        TRUST_PROXY: 'true',
        SCAN_DAILY_LIMIT: '100',
        SIGNIN_FAILURES_PER_ADDRESS: '5',
        SIGNIN_FAILURES_PER_IP: '6',
        SCANS_PER_IP: '8',
        WS_CONNECTIONS_PER_IP: '3',
        UNSUBSCRIBES_PER_IP: '2',
      },
      runtime: { worker: false },
    });
    apps.push(t);
    urls.push(await listenWs(t));
  }
});

after(async () => {
  for (const t of apps) await t.close();
  await relay.close();
  await dovecot.stop();
  await drop();
});

/** A client at `ip` on instance `n` (0 or 1), its `ready` read. */
async function client(n: number, ip: string): Promise<WsClient> {
  const c = await connectWs(urls[n]!, ORIGIN, { 'x-forwarded-for': ip });
  await c.next('ready');
  return c;
}

const scanMsg = (email: string, password: string) => ({
  type: 'scan',
  provider: 'custom',
  email,
  password,
  host: '127.0.0.1',
  port: relay.port,
  tls: 'implicit',
});

/** One scan from `ip` on instance `n`: its final message (done or error). */
async function scan(n: number, ip: string, email: string, password: string) {
  const c = await client(n, ip);
  c.send(scanMsg(email, password));
  const end = await Promise.race([c.next('done', 30_000), c.next('error', 30_000)]);
  await c.close();
  return end;
}

const mismatches = async (user: string) =>
  (
    (await dovecot.logs()).match(
      new RegExp(`passwd-file\\(${user.replace('.', '\\.')},[^)]*\\): Password mismatch`, 'g'),
    ) ?? []
  ).length;

describe('attempt limits across two instances on PostgreSQL', () => {
  test('the sixth failed sign-in to one address within the hour is refused without contacting the mail server', async () => {
    // five wrong passwords, from five addresses of a rotating attacker, on both instances
    for (let i = 0; i < 5; i++) {
      const end = await scan(i % 2, `203.0.113.${10 + i}`, CAROL, `guess-${i}`);
      assert.equal(end.code, 'AUTH_FAILED', `attempt ${i + 1}`);
    }
    const connections = relay.connections;
    for (const [n, password] of [
      [0, 'guess-6'],
      [1, PASSWORD], // the right password too: the address is closed for the hour
    ] as const) {
      const end = await scan(n, '203.0.113.30', CAROL, password);
      assert.equal(end.type, 'error');
      assert.equal(end.code, 'TOO_MANY_SIGN_IN_FAILURES');
      assert.ok(end.retry_after > 3000 && end.retry_after <= 3600, String(end.retry_after));
    }
    assert.equal(relay.connections, connections, 'the mail server was not contacted');
    // Dovecot saw exactly five wrong passwords (it logs them as the client leaves)
    let seen = 0;
    for (let i = 0; i < 50 && seen < 5; i++) {
      seen = await mismatches(CAROL);
      if (seen < 5) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(seen, 5);
  });

  test('failed sign-ins per IP count across addresses and instances', async () => {
    const ip = '198.51.100.40';
    for (let i = 0; i < 6; i++) {
      const end = await scan(i % 2, ip, `nobody${i}@example.test`, 'guess');
      assert.equal(end.code, 'AUTH_FAILED', `attempt ${i + 1}`);
    }
    const connections = relay.connections;
    const end = await scan(0, ip, 'someone-else@example.test', 'guess');
    assert.equal(end.code, 'TOO_MANY_SIGN_IN_FAILURES');
    assert.ok(end.retry_after > 0);
    assert.equal(relay.connections, connections);
    // another network is not affected
    assert.equal((await scan(1, '198.51.100.41', DAVE, PASSWORD)).type, 'done');
  });

  test('scans started per IP are limited across instances; a successful sign-in costs no failure', async () => {
    const ip = '198.51.100.50';
    for (let i = 0; i < 8; i++) assert.equal((await scan(i % 2, ip, DAVE, PASSWORD)).type, 'done', `scan ${i + 1}`);
    const connections = relay.connections;
    const end = await scan(1, ip, DAVE, PASSWORD);
    assert.equal(end.code, 'TOO_MANY_SCANS');
    assert.ok(end.retry_after > 0);
    assert.equal(relay.connections, connections);
  });

  test('concurrent /ws connections per IP hold across instances; a closed one frees its place', async () => {
    const ip = '198.51.100.60';
    const open = [await client(0, ip), await client(1, ip), await client(0, ip)];
    const refused = await connectWs(urls[1]!, ORIGIN, { 'x-forwarded-for': ip });
    const err = await refused.next('error');
    assert.equal(err.code, 'TOO_MANY_CONNECTIONS');
    assert.ok(err.retry_after > 0);
    assert.equal((await refused.closed).code, 1013);
    assert.equal(refused.all('ready').length, 0);
    // another network still gets in
    await (await client(1, '198.51.100.61')).close();
    await open.pop()!.close();
    const again = await client(1, ip); // the freed place, taken through the other instance
    for (const c of [...open, again]) await c.close();
  });

  test('unsubscribes per IP: a batch over the limit is refused whole and sends nothing; dry runs are free', async () => {
    const ip = '198.51.100.70';
    const c = await client(0, ip);
    c.send(scanMsg(DAVE, PASSWORD));
    await c.next('done', 30_000);
    const ids = [...new Set(c.all('subscription').map((m) => m.subscription.id))];
    assert.equal(ids.length, 3);
    c.send({ type: 'unsubscribe', ids: [...ids, ids[0]], dry_run: true });
    const dry = await c.next('unsubscribe_done');
    assert.equal(dry.total, 3);
    assert.equal(dry.counts.failed, 0, 'an id sent twice is not an unknown one');
    c.send({ type: 'unsubscribe', ids });
    const err = await c.next('error');
    assert.equal(err.code, 'TOO_MANY_UNSUBSCRIBES');
    assert.ok(err.retry_after > 0);
    assert.equal(c.all('unsubscribe_result').filter((r) => !r.dry_run).length, 0);
    c.send({ type: 'unsubscribe', ids: ids.slice(0, 2) });
    assert.equal((await c.next('unsubscribe_done')).total, 2);
    await c.close();
    // the other instance counts the same two
    const d = await client(1, ip);
    d.send(scanMsg(DAVE, PASSWORD));
    await d.next('done', 30_000);
    d.send({ type: 'unsubscribe', ids: [d.all('subscription')[0]!.subscription.id] });
    assert.equal((await d.next('error')).code, 'TOO_MANY_UNSUBSCRIBES');
    await d.close();
  });
});
