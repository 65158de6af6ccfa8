/**
 * One-click only on authenticated mail, end to end: Dovecot holds lists whose messages carry
 * different DKIM evidence, all pointing their one-click at a real HTTPS endpoint; the scan says
 * which one-clicks are withheld and why, and the unsubscribe POSTs only to the signed one,
 * falling back to mailto (a real SMTP server) or a link. Also the leniencies real mail needs:
 * HTTPS:// in capitals, a 110-octet mailto local part, an internationalised host.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listMessages } from '../fixtures/list-mail.ts';
import { listenWs, startTestApp, type TestApp } from '../helpers/app.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { type HttpsTarget, startHttpsTarget } from '../helpers/https-target.ts';
import { allowLoopback } from '../helpers/loopback.ts';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';
import { trustTestCa } from '../helpers/tls-ca.ts';
import { connectWs, type Msg } from '../helpers/ws-client.ts';

const ORIGIN = 'http://127.0.0.1:3999';
const USER = 'olga@example.test';
const PASSWORD = 'app-password-123';
const LONG_LOCAL = `unsub-${'a1'.repeat(52)}`; // 110 octets, as real newsletters send

let dovecot: Dovecot;
let target: HttpsTarget;
let sink: SmtpSink;
let t: TestApp;
let wsUrl: string;

before(async () => {
  trustTestCa();
  target = await startHttpsTarget((_path, res) => res.writeHead(200).end('ok'));
  sink = await startSmtpSink({ user: USER, password: PASSWORD, tls: 'implicit' });
  const o = target.origin;
  const inbox = [
    ...listMessages({ from: 'signed@good.example', oneClick: `${o}/u/signed`, mailto: 'mailto:off@good.example' }),
    ...listMessages({
      from: 'bare@none.example',
      oneClick: `${o}/u/none`,
      mailto: 'mailto:off@none.example',
      dkim: 'none',
    }),
    ...listMessages({ from: 'x@failing.example', oneClick: `${o}/u/failing`, dkimFail: true }),
    ...listMessages({
      from: 'half@uncovered.example',
      oneClick: `${o}/u/uncovered`,
      mailto: 'mailto:off@uncovered.example',
      dkim: 'uncovered',
    }),
    ...listMessages({ from: 'esp@unaligned.example', oneClick: `${o}/u/unaligned`, dkim: 'unaligned' }),
    // leniencies: the scheme in capitals (signed, so one-click), a long local part, an IDN host
    ...listMessages({ from: 'caps@shout.example', oneClick: `${o.replace('https', 'HTTPS')}/u/caps` }),
    ...listMessages({ from: 'long@longlocal.example', mailto: `mailto:${LONG_LOCAL}@longlocal.example` }),
    ...listMessages({ from: 'idn@idn.example', http: ['https://bücher.example/abmelden?id=7'] }),
  ];
  dovecot = await startDovecot({ users: [{ user: USER, password: PASSWORD, mailboxes: { INBOX: inbox } }] });
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

describe('one-click only with DKIM evidence', () => {
  test('the scan withholds one-click without a covering, aligned pass and says why; the batch POSTs only to the signed sender', async () => {
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
    });
    await c.next('done', 30_000);
    const subs = new Map<string, Msg>();
    for (const m of c.all('subscription')) subs.set(m.subscription.sender.address, m.subscription);
    const sub = (from: string) => subs.get(from)!;

    assert.equal(sub('signed@good.example').methods.one_click, `${target.origin}/u/signed`);
    assert.equal(sub('signed@good.example').one_click_withheld, null);
    const withheld: [string, string][] = [
      ['bare@none.example', 'unauthenticated'],
      ['x@failing.example', 'dkim_failed'],
      ['half@uncovered.example', 'list_headers_unsigned'],
      ['esp@unaligned.example', 'not_aligned'],
    ];
    for (const [from, reason] of withheld) {
      assert.equal(sub(from).methods.one_click, null, from);
      assert.equal(sub(from).one_click_withheld, reason, from);
      // the URI stays available as a link for the person
      assert.equal(sub(from).methods.http.length, 1, from);
    }
    // leniencies
    assert.equal(sub('caps@shout.example').methods.one_click, `${target.origin}/u/caps`);
    assert.equal(sub('long@longlocal.example').methods.mailto[0].to, `${LONG_LOCAL}@longlocal.example`);
    assert.deepEqual(sub('idn@idn.example').methods.http, ['https://xn--bcher-kva.example/abmelden?id=7']);

    const ids = [...subs.values()].map((s) => s.id);
    c.send({ type: 'unsubscribe', ids, include_flagged: [sub('x@failing.example').id] });
    await c.next('unsubscribe_done', 30_000);
    const results = new Map(c.all('unsubscribe_result').map((r) => [r.id, r]));
    const r = (from: string) => results.get(sub(from).id)!;

    assert.equal(r('signed@good.example').method, 'one_click');
    assert.equal(r('signed@good.example').one_click_withheld, undefined);
    assert.equal(r('caps@shout.example').method, 'one_click');
    assert.deepEqual(target.seen.map((s) => `${s.method} ${s.url}`).sort(), ['POST /u/caps', 'POST /u/signed']);
    // without evidence: mailto when offered, else the link; the reason leads the detail
    assert.equal(r('bare@none.example').status, 'email_sent');
    assert.equal(r('half@uncovered.example').status, 'email_sent');
    assert.equal(r('x@failing.example').status, 'open_link');
    assert.equal(r('esp@unaligned.example').status, 'open_link');
    for (const [from, reason] of withheld) {
      assert.equal(r(from).one_click_withheld, reason, from);
      assert.match(r(from).detail, /^One-click was not used: /, from);
    }
    // the long local part is mailed as written; the IDN link is handed over in its A-label form
    assert.ok(sink.messages.some((m) => m.to.includes(`${LONG_LOCAL}@longlocal.example`)));
    assert.equal(r('long@longlocal.example').status, 'email_sent');
    assert.equal(r('idn@idn.example').status, 'open_link');
    assert.equal(r('idn@idn.example').url, 'https://xn--bcher-kva.example/abmelden?id=7');
    await c.close();
  });
});
