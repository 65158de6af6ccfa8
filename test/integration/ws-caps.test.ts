/**
 * Bounded work per scan over /ws, against a real Dovecot behind a relay that counts the bytes it
 * sends: past the cap on messages only the newest are read, a sender's 8 MB header block never
 * crosses the wire whole, lists past the cap are not kept, and `done.capped` says each of it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listMessages } from '../fixtures/list-mail.ts';
import { listenWs, startTestApp, type TestApp } from '../helpers/app.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { allowLoopback } from '../helpers/loopback.ts';
import { startTcpRelay, type TcpRelay } from '../helpers/tcp-relay.ts';
import { trustTestCa } from '../helpers/tls-ca.ts';
import { connectWs, type Msg } from '../helpers/ws-client.ts';

const ORIGIN = 'http://127.0.0.1:3999';
const PASSWORD = 'pw';
const HUGE = 8 * 1024 * 1024;

let dovecot: Dovecot;
let relay: TcpRelay;
let t: TestApp;
let wsUrl: string;

/** One message whose header block is ~8 MB: a List-Unsubscribe, then thousands of long Subject lines. */
function hugeHeaderMessage(date: Date) {
  const fold = `\r\n ${'x'.repeat(990)}`;
  const subject = `Subject: big${fold.repeat(Math.ceil(HUGE / fold.length))}`;
  const raw = Buffer.from(
    [
      'From: "Big" <big@huge.example>',
      `Date: ${date.toUTCString()}`,
      'Message-ID: <big@huge.example>',
      'List-Unsubscribe: <mailto:off@huge.example>',
      subject,
      '',
      'body',
    ].join('\r\n'),
  );
  return { raw, seen: false, date };
}

before(async () => {
  trustTestCa();
  const old = new Date('2026-01-01T10:00:00Z');
  const recent = new Date('2026-09-01T10:00:00Z');
  // many: 12 old messages of one list, then 6 newest of another (UIDs rise with the date)
  const many = [
    ...listMessages({ from: 'old@lists.example', mailto: 'mailto:off@old.example', count: 12 }, old),
    ...listMessages({ from: 'new@lists.example', mailto: 'mailto:off@new.example', count: 6 }, recent),
  ];
  // wide: 8 lists of 1 message each
  const wide = Array.from({ length: 8 }, (_, i) =>
    listMessages({ from: `l${i}@wide.example`, mailto: `mailto:off@l${i}.example`, count: 1 }, old),
  ).flat();
  dovecot = await startDovecot({
    users: [
      { user: 'many@example.test', password: PASSWORD, mailboxes: { INBOX: many, Archive: many.slice(0, 3) } },
      { user: 'wide@example.test', password: PASSWORD, mailboxes: { INBOX: wide } },
      {
        user: 'huge@example.test',
        password: PASSWORD,
        mailboxes: {
          INBOX: [
            ...listMessages({ from: 'a@small.example', mailto: 'mailto:off@small.example' }),
            hugeHeaderMessage(recent),
          ],
        },
      },
    ],
  });
  relay = await startTcpRelay({ host: '127.0.0.1', port: dovecot.imapsPort });
  t = await startTestApp({
    env: {
      BASE_URL: ORIGIN,
      OUTBOUND_ALLOW_HOSTS: allowLoopback(relay.port),
      SCAN_MAX_MESSAGES: '10',
      SCAN_MAX_SUBSCRIPTIONS: '5',
      SCAN_MAX_HEADER_BYTES: '65536',
    },
    runtime: { worker: false },
  });
  wsUrl = await listenWs(t);
});

after(async () => {
  await t.close();
  await relay.close();
  await dovecot.stop();
});

async function scan(email: string): Promise<{ done: Msg; subs: Map<string, Msg> }> {
  const c = await connectWs(wsUrl, ORIGIN);
  await c.next('ready');
  c.send({
    type: 'scan',
    provider: 'custom',
    email,
    password: PASSWORD,
    host: '127.0.0.1',
    port: relay.port,
    tls: 'implicit',
  });
  const done = await c.next('done', 60_000);
  const subs = new Map<string, Msg>();
  for (const m of c.all('subscription')) subs.set(m.subscription.sender.address, m.subscription);
  await c.close();
  return { done, subs };
}

describe('bounded work per scan', () => {
  test('past the cap on messages the newest are read, later folders not at all, and done says how many were left', async () => {
    const { done, subs } = await scan('many@example.test');
    assert.equal(done.scanned, 10);
    assert.deepEqual(done.mailboxes, [
      { path: 'INBOX', messages: 10 },
      { path: 'Archive', messages: 0 },
    ]);
    // the 6 newest (list "new") and the 4 newest of "old"
    assert.equal(subs.get('new@lists.example')?.count, 6);
    assert.equal(subs.get('old@lists.example')?.count, 4);
    assert.deepEqual(done.capped, [{ cap: 'messages', limit: 10, count: 18 - 10 + 3 }]);
  });

  test('lists past the cap are not kept, and done counts their messages', async () => {
    const { done, subs } = await scan('wide@example.test');
    assert.equal(done.scanned, 8);
    assert.equal(subs.size, 5);
    assert.equal(done.subscriptions, 5);
    assert.deepEqual(done.capped, [{ cap: 'subscriptions', limit: 5, count: 3 }]);
  });

  test('an 8 MB header block is fetched only to the cap, cut to whole lines, and the scan goes on', async () => {
    const before = relay.bytesDown;
    const { done, subs } = await scan('huge@example.test');
    const sent = relay.bytesDown - before;
    assert.ok(sent < 1024 * 1024, `${sent} bytes crossed the wire`);
    assert.equal(done.scanned, 4);
    assert.deepEqual(done.capped, [{ cap: 'header_bytes', limit: 65536, count: 1 }]);
    // the fields before the cut are read: the huge message's list is found
    assert.equal(subs.get('big@huge.example')?.count, 1);
    assert.equal(subs.get('a@small.example')?.count, 3);
  });
});
