/**
 * Which folders a scan reads (docs/websocket.md "Folders"), against two private Dovecots: a
 * Gmail-like tree whose All Mail is flagged \All (RFC 6154), and a plain tree with INBOX and an
 * \Archive folder that holds copies of some INBOX messages.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ImapFlow } from 'imapflow';
import { listMessages } from '../fixtures/list-mail.ts';
import { listenWs, startTestApp, type TestApp } from '../helpers/app.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { allowLoopback } from '../helpers/loopback.ts';
import { trustTestCa } from '../helpers/tls-ca.ts';
import { connectWs, type Msg } from '../helpers/ws-client.ts';

const ORIGIN = 'http://127.0.0.1:3999';
const PASSWORD = 'folders-pw';
const ALL_MAIL = '[Gmail]/All Mail';
const later = new Date('2026-10-01T10:00:00Z');

const a = listMessages({ from: 'a@lists.example', oneClick: 'https://a.example/u', count: 3 });
const b = listMessages({ from: 'b@lists.example', oneClick: 'https://b.example/u', count: 2 });
const bOlder = listMessages({ from: 'b@lists.example', oneClick: 'https://b.example/u', count: 4 }, later);
const c = listMessages({ from: 'c@lists.example', oneClick: 'https://c.example/u', count: 5 });
const junk = listMessages({ from: 'j@spam.example', oneClick: 'https://j.example/u', count: 2 });
const trash = listMessages({ from: 't@gone.example', oneClick: 'https://t.example/u', count: 1 });

let gmail: Dovecot;
let plain: Dovecot;
let t: TestApp;
let wsUrl: string;

before(async () => {
  trustTestCa();
  // Gmail: INBOX is a label; All Mail holds every message, the inbox's included.
  gmail = await startDovecot({
    users: [
      {
        user: 'gina@example.test',
        password: PASSWORD,
        mailboxes: { INBOX: [...a, ...b], [ALL_MAIL]: [...a, ...b, ...bOlder, ...c] },
      },
    ],
    specialUse: { [ALL_MAIL]: '\\All', Archive: null },
  });
  // A plain server: archiving moved most mail, and two messages of b are in both folders.
  plain = await startDovecot({
    users: ['ada', 'ada2', 'ada3'].map((u) => ({
      user: `${u}@example.test`,
      password: PASSWORD,
      mailboxes: { INBOX: [...a, ...b], Archive: [...b, ...c], Junk: junk, Trash: trash },
    })),
  });
  t = await startTestApp({
    env: {
      BASE_URL: ORIGIN,
      OUTBOUND_ALLOW_HOSTS: allowLoopback(gmail.imapsPort, plain.imapsPort),
    },
    runtime: { worker: false },
  });
  wsUrl = await listenWs(t);
});

after(async () => {
  await t.close();
  await gmail.stop();
  await plain.stop();
});

async function scan(server: Dovecot, email: string, mailboxes?: string[]) {
  const ws = await connectWs(wsUrl, ORIGIN);
  const ready = await ws.next('ready');
  ws.send({
    type: 'scan',
    provider: 'custom',
    email,
    password: PASSWORD,
    host: '127.0.0.1',
    port: server.imapsPort,
    tls: 'implicit',
    ...(mailboxes ? { mailboxes } : {}),
  });
  const done = await ws.next('done', 60_000);
  const subs = new Map<string, Msg>();
  for (const m of ws.all('subscription')) subs.set(m.subscription.sender.address, m.subscription);
  const read = new Set(ws.all('progress').flatMap((p) => (p.mailbox ? [p.mailbox] : [])));
  await ws.close();
  return { done, subs, read, session: ready.session as string };
}

const counts = (subs: Map<string, Msg>) => Object.fromEntries([...subs].map(([k, s]) => [k, s.count]).sort());

describe('the folders a scan reads', () => {
  test('with an \\All mailbox, only it is read: the inbox is not counted twice', async () => {
    const { done, subs, read } = await scan(gmail, 'gina@example.test');
    assert.deepEqual(done.mailboxes, [{ path: ALL_MAIL, messages: 14 }]);
    assert.deepEqual([...read], [ALL_MAIL], 'progress names the folder');
    assert.equal(done.scanned, 14);
    assert.deepEqual(counts(subs), { 'a@lists.example': 3, 'b@lists.example': 6, 'c@lists.example': 5 });
    for (const s of subs.values()) assert.deepEqual(s.mailboxes, [ALL_MAIL]);
  });

  test('without \\All: INBOX and \\Archive are both read, and a message in both counts once', async () => {
    const { done, subs, read, session } = await scan(plain, 'ada@example.test');
    assert.deepEqual(done.mailboxes, [
      { path: 'INBOX', messages: 5 },
      { path: 'Archive', messages: 7 },
    ]);
    assert.deepEqual([...read], ['INBOX', 'Archive']);
    assert.equal(done.scanned, 12, 'every message read in each folder');
    assert.deepEqual(counts(subs), { 'a@lists.example': 3, 'b@lists.example': 2, 'c@lists.example': 5 });
    assert.equal(subs.has('j@spam.example') || subs.has('t@gone.example'), false, 'Junk and Trash not read');
    // the copies are kept for archiving, so moving a sender's mail takes every copy
    const kept = t.runtime.sessions.find(session)?.lastScan?.uids.bySubscription.get(subs.get('b@lists.example')!.id);
    assert.deepEqual(
      [...(kept ?? [])].map(([box, uids]) => [box, uids.length]),
      [
        ['INBOX', 2],
        ['Archive', 2],
      ],
    );
  });

  test('Junk and Trash are read when asked for, by role, besides the default folders', async () => {
    const { done, subs } = await scan(plain, 'ada2@example.test', ['default', 'junk', 'trash']);
    assert.deepEqual(
      done.mailboxes.map((m: { path: string }) => m.path),
      ['INBOX', 'Archive', 'Junk', 'Trash'],
    );
    assert.equal(subs.get('j@spam.example')?.junk_only, true);
    assert.equal(subs.get('t@gone.example')?.count, 1);
  });

  test('a role the server lacks is left out; a path it lacks is MAILBOX_NOT_FOUND', async () => {
    const { done } = await scan(gmail, 'gina@example.test', ['inbox', 'archive']);
    assert.deepEqual(done.mailboxes, [{ path: 'INBOX', messages: 5 }]);
    const ws = await connectWs(wsUrl, ORIGIN);
    await ws.next('ready');
    ws.send({
      type: 'scan',
      provider: 'custom',
      email: 'ada3@example.test',
      password: PASSWORD,
      host: '127.0.0.1',
      port: plain.imapsPort,
      tls: 'implicit',
      mailboxes: ['default', 'Newsletters'],
    });
    assert.equal((await ws.next('error')).code, 'MAILBOX_NOT_FOUND');
    await ws.close();
  });

  test('the Gmail-like tree advertises \\All and no \\Archive', async () => {
    const client = new ImapFlow({
      host: '127.0.0.1',
      port: gmail.imapsPort,
      secure: true,
      auth: { user: 'gina@example.test', pass: PASSWORD },
      logger: false,
    });
    await client.connect();
    const flagged = (await client.list()).filter((m) => m.specialUse).map((m) => [m.path, m.specialUse]);
    await client.logout();
    assert.deepEqual(flagged.sort(), [
      ['INBOX', '\\Inbox'],
      ['Junk', '\\Junk'],
      ['Sent', '\\Sent'],
      ['Trash', '\\Trash'],
      [ALL_MAIL, '\\All'],
    ]);
  });
});
