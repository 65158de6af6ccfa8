/**
 * Outlook / Microsoft 365 over /ws: the person signs in with Microsoft (the test identity
 * provider, driven over HTTP), and the /ws connection whose upgrade request carries the
 * session cookie scans with `{type:"scan", provider:"outlook"}` — no address, no password —
 * at a private Dovecot whose oauth2 passdb checks every token, then unsubscribes by mailto
 * over SMTP XOAUTH2 from the signed-in address (docs/microsoft.md, docs/websocket.md).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateMailbox, type MailboxTruth } from '../fixtures/mail-generator.ts';
import { createHttpBrowser, type HttpBrowser, signIn } from '../helpers/http-browser.ts';
import { type OAuthStack, startOAuthStack } from '../helpers/oauth-stack.ts';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';
import { connectWs, type Msg, type WsClient } from '../helpers/ws-client.ts';

const ALICE = 'alice@example.test';

describe('scanning an Outlook mailbox over /ws with the Microsoft sign-in', () => {
  let s: OAuthStack;
  let sink: SmtpSink;
  let truth: MailboxTruth;
  let browser: HttpBrowser;
  const open: WsClient[] = [];
  const ws = async (cookie?: string) => {
    const c = await connectWs(`${s.base.replace('http', 'ws')}/ws`, undefined, cookie ? { cookie } : undefined);
    open.push(c);
    await c.next('ready');
    return c;
  };

  before(async () => {
    const mail = generateMailbox({ seed: 41, lists: 10, messagesPerList: [1, 4], plain: 3, nasty: false });
    truth = mail.truth;
    // The SMTP server checks each XOAUTH2 token at the stack's identity provider, started next.
    sink = await startSmtpSink({ tls: 'implicit', oauth: { introspect: (t) => s.idp.introspect(t) } });
    s = await startOAuthStack({
      mail: { [ALICE]: mail.messages },
      env: { OAUTH_SMTP_URL: `smtps://127.0.0.1:${sink.port}` },
      allowHosts: [`127.0.0.1:${sink.port}`],
    });
    browser = createHttpBrowser();
    await signIn(browser, `${s.base}/auth/microsoft/start`, ALICE);
  });
  after(async () => {
    for (const c of open) await c.close();
    await s?.close();
    await sink?.close();
  });

  test('the signed-in connection scans the address Microsoft vouched for, with no password', async () => {
    const c = await ws(browser.cookieHeader(`${s.base}/`));
    c.send({ type: 'scan', provider: 'outlook' });
    const done = await c.next('done', 60_000);
    const quota = c.all('quota').at(-1)!;
    assert.equal(quota.email, ALICE, 'the quota is counted for the signed-in address');
    const found = new Set(c.all('subscription').map((m: Msg) => m.subscription.list_key));
    assert.deepEqual(found, new Set(truth.lists.map((l) => l.key)));
    assert.equal(done.subscriptions, truth.lists.length);
    const logs = await s.dovecot!.logs();
    assert.match(logs, /Login: user=<alice@example\.test>, method=XOAUTH2/);
  });

  test('a mailto unsubscription goes out over SMTP XOAUTH2 from the signed-in address', async () => {
    const c = await ws(browser.cookieHeader(`${s.base}/`));
    c.send({ type: 'scan', provider: 'outlook' });
    await c.next('done', 60_000);
    const mailtoOnly = c
      .all('subscription')
      .map((m: Msg) => m.subscription)
      .find((sub: Msg) => sub.methods.mailto.length > 0 && !sub.methods.one_click && sub.methods.http.length === 0);
    assert.ok(mailtoOnly, 'the generated mailbox has a list that can only be left by email');
    const before = sink.messages.length;
    c.send({ type: 'unsubscribe', ids: [mailtoOnly.id] });
    const result = await c.next('unsubscribe_result', 60_000);
    assert.equal(result.status, 'email_sent', result.detail);
    const sent = sink.messages.slice(before);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.from, ALICE);
    assert.equal(sent[0]!.user, ALICE);
    assert.ok(sink.oauthLogins.at(-1)!.accepted);
  });

  test('without a sign-in on the connection, outlook is refused before any mail server is contacted', async () => {
    const logins = ((await s.dovecot!.logs()).match(/Login: /g) ?? []).length;
    const c = await ws();
    c.send({ type: 'scan', provider: 'outlook' });
    const err = await c.next('error');
    assert.equal(err.code, 'OAUTH_SESSION_EXPIRED');
    assert.equal(c.all('quota').length, 0, 'no scan was counted');
    assert.equal(((await s.dovecot!.logs()).match(/Login: /g) ?? []).length, logins);
  });

  test('a password or a missing address is a malformed message, never a sign-in attempt', async () => {
    const c = await ws(browser.cookieHeader(`${s.base}/`));
    c.send({ type: 'scan', provider: 'outlook', password: 'hunter2' });
    assert.equal((await c.next('error')).code, 'INVALID_MESSAGE');
    c.send({ type: 'scan', provider: 'gmail', password: 'x' });
    assert.equal((await c.next('error')).code, 'INVALID_MESSAGE');
  });

  test('after signing out, the same connection can no longer scan', async () => {
    const other = createHttpBrowser();
    await signIn(other, `${s.base}/auth/microsoft/start`, ALICE);
    const c = await ws(other.cookieHeader(`${s.base}/`));
    const out = await fetch(`${s.base}/auth/microsoft/signout`, {
      method: 'POST',
      headers: { cookie: other.cookieHeader(`${s.base}/`), origin: s.base },
      redirect: 'manual',
    });
    assert.equal(out.status, 303);
    c.send({ type: 'scan', provider: 'outlook' });
    assert.equal((await c.next('error')).code, 'OAUTH_SESSION_EXPIRED');
  });

  test('the page offers "Sign in with Microsoft" where the sign-in is set up', async () => {
    const page = await (await fetch(`${s.base}/`)).text();
    assert.match(page, /<input type="radio" name="provider" value="outlook">/);
    assert.match(page, /id="ms-sign-in" href="\/auth\/microsoft\/start"/);
    assert.doesNotMatch(page, /id="ms-not-configured"/);
  });
});

describe('a server without the Microsoft sign-in set up', () => {
  let s: OAuthStack;
  before(async () => {
    s = await startOAuthStack({ unconfigured: true });
  });
  after(() => s.close());

  test('outlook over /ws is refused as not configured', async () => {
    const c = await connectWs(`${s.base.replace('http', 'ws')}/ws`);
    await c.next('ready');
    c.send({ type: 'scan', provider: 'outlook' });
    assert.equal((await c.next('error')).code, 'OAUTH_NOT_CONFIGURED');
    await c.close();
  });

  test('the page says it is not set up instead of showing a button that could only fail', async () => {
    const page = await (await fetch(`${s.base}/`)).text();
    assert.match(page, /id="ms-not-configured"/);
    assert.doesNotMatch(page, /ms-sign-in/);
  });
});
