/**
 * Batch unsubscribe end to end: scan over /ws against Dovecot, then unsubscribe through
 * real peers — an HTTPS one-click endpoint, an SMTP server, Dovecot for archiving.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ImapFlow } from 'imapflow';
import { listMessages } from '../fixtures/list-mail.ts';
import { listenWs, startTestApp, type TestApp } from '../helpers/app.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { type HttpsTarget, startHttpsTarget } from '../helpers/https-target.ts';
import { allowLoopback } from '../helpers/loopback.ts';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';
import { trustTestCa } from '../helpers/tls-ca.ts';
import { connectWs, type Msg, type WsClient } from '../helpers/ws-client.ts';

const ORIGIN = 'http://127.0.0.1:3999';
const USER = 'dana@example.test';
const PASSWORD = 'app-password-123';
const OTHER = 'eve@example.test';

let dovecot: Dovecot;
let target: HttpsTarget;
let sink: SmtpSink;
let t: TestApp;
let wsUrl: string;

before(async () => {
  trustTestCa();
  target = await startHttpsTarget((path, res) => {
    if (path.startsWith('/fail')) res.writeHead(500).end('no');
    else if (path.startsWith('/redirect')) res.writeHead(302, { location: '/elsewhere' }).end();
    else res.writeHead(200).end('ok');
  });
  sink = await startSmtpSink({ user: USER, password: PASSWORD, tls: 'implicit' });
  const o = target.origin;
  const inbox = [
    ...listMessages({
      from: 'news@oneclick.example',
      listId: 'news.oneclick.example',
      oneClick: `${o}/u/news`,
      mailto: 'mailto:off@oneclick.example',
    }),
    ...listMessages({
      from: 'deals@mailonly.example',
      mailto: 'mailto:leave+deals@mailonly.example?subject=unsubscribe%20me&body=remove+me',
    }),
    ...listMessages({ from: 'blog@linkonly.example', http: ['https://linkonly.example/unsub?u=1'] }),
    ...listMessages({ from: 'promo@forged.example', oneClick: `${o}/u/forged`, dkimFail: true }),
    ...listMessages({ from: 'sale@broken.example', oneClick: `${o}/fail/1`, mailto: 'mailto:stop@broken.example' }),
    ...listMessages({ from: 'x@redirect.example', oneClick: `${o}/redirect/1` }),
    ...listMessages({ from: 'meta@ssrf.example', oneClick: 'https://169.254.169.254/latest/meta-data/' }),
  ];
  const junk = listMessages({ from: 'spam@junk.example', oneClick: `${o}/u/junk` });
  const lists = listMessages({ from: 'weekly@moved.example', oneClick: `${o}/u/moved` });
  dovecot = await startDovecot({
    users: [
      { user: USER, password: PASSWORD, mailboxes: { INBOX: inbox, Junk: junk } },
      { user: OTHER, password: PASSWORD, mailboxes: { Lists: lists } },
    ],
  });
  t = await startTestApp({
    env: {
      BASE_URL: ORIGIN,
      OUTBOUND_ALLOW_HOSTS: allowLoopback(dovecot.imapsPort, target.port, sink.port),
    },
    runtime: { worker: false },
  });
  wsUrl = await listenWs(t);
});

after(async () => {
  await t.close();
  await dovecot.stop();
  await target.close();
  await sink.close();
});

async function scanned(): Promise<{ c: WsClient; byFrom: Map<string, Msg> }> {
  const c = await connectWs(wsUrl, ORIGIN);
  await c.next('ready');
  c.send({
    type: 'scan',
    provider: 'custom',
    email: USER,
    password: PASSWORD,
    host: '127.0.0.1',
    port: dovecot.imapsPort,
    tls: 'implicit',
    smtp: { host: '127.0.0.1', port: sink.port, tls: 'implicit' },
    mailboxes: ['INBOX', 'junk'],
  });
  await c.next('done', 30_000);
  const byFrom = new Map<string, Msg>();
  for (const m of c.all('subscription')) byFrom.set(m.subscription.sender.address, m.subscription);
  return { c, byFrom };
}

const results = async (c: WsClient, n: number) => {
  const done = await c.next('unsubscribe_done', 30_000);
  const rs = c.all('unsubscribe_result').slice(-n);
  return { done, byId: new Map(rs.map((r) => [r.id, r])) };
};

describe('unsubscribing over /ws', () => {
  test('unsubscribe before any scan is refused; unknown ids fail', async () => {
    const c = await connectWs(wsUrl, ORIGIN);
    await c.next('ready');
    c.send({ type: 'unsubscribe', ids: ['nope'] });
    assert.equal((await c.next('error')).code, 'INVALID_MESSAGE');
    await c.close();
  });

  test('a dry run says what would happen and sends nothing', async () => {
    const { c, byFrom } = await scanned();
    const ids = [...byFrom.values()].map((s) => s.id);
    c.send({ type: 'unsubscribe', ids, dry_run: true });
    const { done, byId } = await results(c, ids.length);
    assert.equal(done.dry_run, true);
    assert.equal(byId.get(byFrom.get('news@oneclick.example')!.id)!.status, 'unsubscribed');
    assert.match(byId.get(byFrom.get('news@oneclick.example')!.id)!.detail, /Dry run/);
    assert.equal(byId.get(byFrom.get('deals@mailonly.example')!.id)!.status, 'email_sent');
    assert.equal(target.seen.length, 0);
    assert.equal(sink.messages.length, 0);
    await c.close();
  });

  test('each method, each safety rule, real peers, and past mail archived', async () => {
    const { c, byFrom } = await scanned();
    const id = (from: string) => byFrom.get(from)!.id;
    const ids = [...byFrom.values()].map((s) => s.id);
    c.send({ type: 'unsubscribe', ids: [...ids, 'not-from-this-scan'], archive: true });
    const { done, byId } = await results(c, ids.length + 1);
    const r = (from: string) => byId.get(id(from))!;

    // RFC 8058 one-click: exactly one POST, the right body and type, no cookie
    assert.equal(r('news@oneclick.example').status, 'unsubscribed');
    assert.equal(r('news@oneclick.example').method, 'one_click');
    const posts = target.seen.filter((s) => s.url === '/u/news');
    assert.equal(posts.length, 1);
    assert.equal(posts[0]!.method, 'POST');
    assert.equal(posts[0]!.body, 'List-Unsubscribe=One-Click');
    assert.equal(posts[0]!.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(posts[0]!.headers.cookie, undefined);
    assert.equal(posts[0]!.headers.authorization, undefined);

    // mailto from the person's own address, subject and body honoured, + kept
    assert.equal(r('deals@mailonly.example').status, 'email_sent');
    const mail = sink.messages.find((m) => m.to.includes('leave+deals@mailonly.example'))!;
    assert.equal(mail.from, USER);
    assert.equal(mail.user, USER);
    assert.match(mail.raw, /Subject: unsubscribe me/);
    assert.match(mail.raw, /remove\+me/);

    // a link is handed to the person, never fetched by the server
    assert.equal(r('blog@linkonly.example').status, 'open_link');
    assert.equal(r('blog@linkonly.example').url, 'https://linkonly.example/unsub?u=1');

    // safety: failed DKIM and Junk-only are skipped, and nothing was sent to them
    assert.equal(r('promo@forged.example').status, 'skipped');
    assert.equal(r('spam@junk.example').status, 'skipped');
    assert.equal(target.seen.filter((s) => s.url === '/u/forged' || s.url === '/u/junk').length, 0);

    // a failed one-click falls back to mailto and says so
    assert.equal(r('sale@broken.example').status, 'email_sent');
    assert.match(r('sale@broken.example').detail, /500/);
    // each method tried, with the sender's HTTP status
    assert.deepEqual(r('sale@broken.example').attempts, [
      { method: 'one_click', outcome: 'rejected', http_status: 500 },
      { method: 'mailto', outcome: 'ok' },
    ]);
    assert.deepEqual(r('news@oneclick.example').attempts, [{ method: 'one_click', outcome: 'ok', http_status: 200 }]);
    assert.equal(r('promo@forged.example').attempts, undefined);
    // a redirect is not followed; the person gets the link to open instead
    assert.equal(r('x@redirect.example').status, 'open_link');
    assert.match(r('x@redirect.example').detail, /302/);
    assert.equal(target.seen.filter((s) => s.url === '/elsewhere').length, 0);
    // a metadata address is refused without a connection, and not offered as a link either
    assert.equal(r('meta@ssrf.example').status, 'failed');
    assert.equal(r('meta@ssrf.example').url, undefined);
    assert.match(r('meta@ssrf.example').detail, /private|reserved|not contacted|refused/i);
    assert.ok(r('meta@ssrf.example').attempts?.every((a: { outcome: string }) => a.outcome === 'blocked'));
    // the id from nowhere
    assert.equal(byId.get('not-from-this-scan')!.status, 'failed');

    // archive: the acted-on senders' mail left INBOX for Archive
    assert.equal(r('news@oneclick.example').archived, 3);
    assert.equal(r('promo@forged.example').archived, undefined);
    assert.ok(done.archived >= 3 * 5);
    const imap = new ImapFlow({
      host: '127.0.0.1',
      port: dovecot.imapsPort,
      secure: true,
      auth: { user: USER, pass: PASSWORD },
      logger: false,
    });
    await imap.connect();
    const inbox = await imap.status('INBOX', { messages: true });
    const archive = await imap.status('Archive', { messages: true });
    await imap.logout();
    assert.ok(inbox && archive);
    assert.equal(archive.messages, done.archived);
    assert.equal(inbox.messages, 7 * 3 - done.archived);
    assert.deepEqual(done.counts, { unsubscribed: 1, email_sent: 2, open_link: 2, skipped: 2, failed: 2 });
    await c.close();
  });

  test('a flagged sender is acted on when the person includes it, but never by one-click', async () => {
    const { c, byFrom } = await scanned();
    const forged = byFrom.get('promo@forged.example')!.id;
    c.send({ type: 'unsubscribe', ids: [forged], include_flagged: [forged] });
    const { byId } = await results(c, 1);
    // its DKIM failed, so its one-click was withheld: the person gets the page to open
    assert.equal(byId.get(forged)!.status, 'open_link');
    assert.equal(byId.get(forged)!.one_click_withheld, 'dkim_failed');
    assert.equal(target.seen.filter((s) => s.url === '/u/forged').length, 0);
    await c.close();
  });
});

describe('archiving when the mailbox changed since the scan', () => {
  test('a folder whose UIDVALIDITY changed is left alone, and the result says why', async () => {
    const c = await connectWs(wsUrl, ORIGIN);
    await c.next('ready');
    c.send({
      type: 'scan',
      provider: 'custom',
      email: OTHER,
      password: PASSWORD,
      host: '127.0.0.1',
      port: dovecot.imapsPort,
      tls: 'implicit',
      mailboxes: ['Lists'],
    });
    await c.next('done', 30_000);
    const sub = c.all('subscription').at(-1)!.subscription;

    // Recreate the folder with the same messages: same UIDs, new UIDVALIDITY (RFC 3501 §2.3.1.1).
    const imap = new ImapFlow({
      host: '127.0.0.1',
      port: dovecot.imapsPort,
      secure: true,
      auth: { user: OTHER, pass: PASSWORD },
      logger: false,
    });
    await imap.connect();
    const lock = await imap.getMailboxLock('Lists');
    const raws: Buffer[] = [];
    for await (const m of imap.fetch('1:*', { source: true })) if (m.source) raws.push(m.source);
    lock.release();
    await imap.mailboxDelete('Lists');
    await imap.mailboxCreate('Lists');
    for (const raw of raws) await imap.append('Lists', raw);

    c.send({ type: 'unsubscribe', ids: [sub.id], archive: true });
    const r = await c.next('unsubscribe_result', 30_000);
    assert.equal(r.status, 'unsubscribed');
    assert.equal(r.archived, 0);
    assert.match(r.detail, /changed since the scan/);
    const after = await imap.status('Lists', { messages: true });
    assert.ok(after);
    assert.equal(after.messages, raws.length);
    await imap.logout();
    await c.close();
  });
});
