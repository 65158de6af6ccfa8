/**
 * Signed-in Microsoft accounts at real mail servers: a private Dovecot whose oauth2 passdb
 * checks every XOAUTH2 token at the test identity provider (RFC 7662 introspection), and an
 * SMTP server (smtp-server) that does the same. Accounts come from the real grants: the browser
 * sign-in driven over HTTP, the device code approved by an HTTP client, and refreshes forced by
 * a two-second access-token lifetime.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateMailbox, type MailboxTruth } from '../../test/fixtures/mail-generator.ts';
import { type Dovecot, startDovecot } from '../../test/helpers/dovecot.ts';
import { approveDevice, createHttpBrowser, signIn } from '../../test/helpers/http-browser.ts';
import { type OAuthStack, startOAuthStack } from '../../test/helpers/oauth-stack.ts';
import { type Idp, startIdp } from '../../test/helpers/oidc-idp.ts';
import { type SmtpSink, startSmtpSink } from '../../test/helpers/smtp-sink.ts';
import { trustTestCa } from '../../test/helpers/tls-ca.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../log.ts';
import type { Endpoint } from '../mailbox/providers.ts';
import type { ScanHooks } from '../mailbox/scan.ts';
import { createOutboundGuard, type OutboundGuard } from '../outbound/guard.ts';
import { createMailtoSender } from '../unsubscribe/mailto.ts';
import type { OAuthAccount } from './account.ts';
import { createOAuthClient } from './client.ts';
import { startDeviceSignIn } from './device.ts';
import { scanWithAccount, tokenSource } from './mail.ts';

const ALICE = 'alice@example.test';
const hooks: ScanHooks = { progress: () => {}, subscription: () => {}, started: async () => true };
const opts = { matchService: () => null, imapTimeouts: { connectMs: 20_000, socketMs: 60_000 } };

async function deviceAccount(idp: Idp, login = ALICE): Promise<OAuthAccount> {
  const config = loadConfig({ OAUTH_ISSUER: idp.issuer, OAUTH_CLIENT_ID: idp.clientId });
  const started = await startDeviceSignIn(createOAuthClient(config.oauth, createLogger('silent')));
  assert.ok(started.ok);
  await approveDevice(started.flow.verification_uri, started.flow.user_code, login);
  const r = await started.flow.result;
  assert.ok(r.ok);
  return r.account;
}

/** Until the provider itself says the token is no longer active (no sleeping on a guess). */
async function expired(idp: Idp, token: string) {
  while ((await idp.introspect(token)).active) await new Promise((r) => setTimeout(r, 200));
}

const mailto = (to: string) => ({ uri: `mailto:${to}`, to, subject: null, body: null });

async function tokenOf(account: OAuthAccount): Promise<string> {
  const t = await account.accessToken();
  assert.ok(t.ok);
  return t.token;
}

describe('XOAUTH2 at IMAP', () => {
  let s: OAuthStack;
  let truth: MailboxTruth;
  let imap: Endpoint;
  let guard: OutboundGuard;
  let stranger: { idp: Idp; dovecot: Dovecot };
  before(async () => {
    const mail = generateMailbox({ seed: 31, lists: 8, messagesPerList: [2, 6], plain: 5, nasty: false });
    truth = mail.truth;
    s = await startOAuthStack({ mail: { [ALICE]: mail.messages } });
    imap = { host: '127.0.0.1', port: s.dovecot!.imapsPort, tls: 'implicit' };
    // a mail server that trusts another identity provider: it refuses our tokens
    const other = await startIdp();
    stranger = {
      idp: other,
      dovecot: await startDovecot({ users: [{ user: ALICE }], oauth2Introspection: other.introspection }),
    };
    guard = createOutboundGuard({
      allowHosts: [`127.0.0.1:${s.dovecot!.imapsPort}`, `127.0.0.1:${stranger.dovecot.imapsPort}`],
    });
  });
  after(async () => {
    await guard.close();
    await stranger.dovecot.stop();
    await stranger.idp.stop();
    await s.close();
  });

  test('a browser sign-in scans the mailbox: imapflow signs in, the lean reader fetches', async () => {
    const b = createHttpBrowser();
    await signIn(b, `${s.base}/auth/microsoft/start`, ALICE);
    const account = s.app.runtime.oauth.sessions.get(b.cookie(`${s.base}/`, 'optout_ms')!.value)!;
    assert.equal(account.email, ALICE);
    const r = await scanWithAccount(account, imap, guard, opts, hooks);
    assert.ok(r.ok, !r.ok ? r.code : '');
    assert.equal(r.scanned, truth.total);
    assert.equal(r.subscriptions.length, truth.lists.length);
    assert.equal(r.reader, 'lean', 'the lean connection signed in with AUTHENTICATE XOAUTH2');
    // two sign-ins, imapflow's and the lean reader's, both XOAUTH2 checked by the oauth2 passdb
    const logins = (await s.dovecot!.logs()).match(/Login: user=<alice@example\.test>, method=XOAUTH2/g) ?? [];
    assert.equal(logins.length, 2);
  });

  test('a device-code sign-in scans the mailbox', async () => {
    const account = await deviceAccount(s.idp);
    const r = await scanWithAccount(account, imap, guard, opts, hooks);
    assert.ok(r.ok);
    assert.equal(r.subscriptions.length, truth.lists.length);
  });

  test('a token the mail server refuses is renewed once, then reported as OAUTH_TOKEN_REFUSED', async () => {
    const account = await deviceAccount(s.idp);
    const refreshes = s.idp.grants.get('refresh_token') ?? 0;
    const elsewhere: Endpoint = { host: '127.0.0.1', port: stranger.dovecot.imapsPort, tls: 'implicit' };
    const r = await scanWithAccount(account, elsewhere, guard, opts, hooks);
    assert.equal(!r.ok && r.code, 'OAUTH_TOKEN_REFUSED');
    assert.equal(s.idp.grants.get('refresh_token'), refreshes + 1);
    assert.equal(account.active, true, 'the sign-in itself is still good');
  });

  test('access withdrawn at the provider ends the sign-in: OAUTH_SESSION_EXPIRED', async () => {
    const account = await deviceAccount(s.idp, 'alice@example.test');
    await s.idp.revokeAccount(ALICE);
    const r = await scanWithAccount(account, imap, guard, opts, hooks);
    assert.equal(!r.ok && r.code, 'OAUTH_SESSION_EXPIRED');
    assert.equal(account.active, false);
    assert.equal((await account.accessToken()).ok, false);
  });

  test('an identity provider that is down is OAUTH_PROVIDER_UNAVAILABLE, and nothing is lost', async () => {
    const account = await deviceAccount(s.idp);
    await s.idp.down();
    try {
      // Dovecot cannot check the token either, so the sign-in fails and the renewal cannot happen
      const r = await scanWithAccount(account, imap, guard, opts, hooks);
      assert.equal(!r.ok && r.code, 'OAUTH_PROVIDER_UNAVAILABLE');
    } finally {
      await s.idp.up();
    }
    assert.equal(account.active, true);
    assert.ok((await scanWithAccount(account, imap, guard, opts, hooks)).ok, 'works again once it is back');
  });
});

describe('refresh when the access token has expired', () => {
  let idp: Idp;
  let dovecot: Dovecot;
  let sink: SmtpSink;
  let guard: OutboundGuard;
  let imap: Endpoint;
  let smtp: Endpoint;
  before(async () => {
    trustTestCa();
    idp = await startIdp({ accessTokenTtl: 2 });
    const mail = generateMailbox({ seed: 32, lists: 4, messagesPerList: [1, 3], plain: 2, nasty: false });
    dovecot = await startDovecot({
      users: [{ user: ALICE, mailboxes: { INBOX: mail.messages } }],
      oauth2Introspection: idp.introspection,
    });
    sink = await startSmtpSink({ tls: 'implicit', oauth: idp });
    imap = { host: '127.0.0.1', port: dovecot.imapsPort, tls: 'implicit' };
    smtp = { host: '127.0.0.1', port: sink.port, tls: 'implicit' };
    guard = createOutboundGuard({ allowHosts: [`127.0.0.1:${dovecot.imapsPort}`, `127.0.0.1:${sink.port}`] });
  });
  /** what the unsubscribe engine makes for a signed-in account: XOAUTH2 from its own address */
  const senderFor = (account: OAuthAccount) =>
    createMailtoSender({
      endpoint: smtp,
      user: account.email,
      from: account.email,
      tokens: tokenSource(account),
      guard,
    });
  after(async () => {
    await guard.close();
    await sink.close();
    await dovecot.stop();
    await idp.stop();
  });

  test('a scan after expiry refreshes first, and the rotated refresh token works next time', async () => {
    const account = await deviceAccount(idp);
    const before = idp.grants.get('refresh_token') ?? 0;
    const first = await tokenOf(account);
    await expired(idp, first);
    assert.ok((await scanWithAccount(account, imap, guard, opts, hooks)).ok);
    // (on a slow machine a 2-second token may need refreshing more than once along the way)
    const after = idp.grants.get('refresh_token') ?? 0;
    assert.ok(after > before, 'refreshed before signing in');
    const second = await tokenOf(account);
    assert.notEqual(second, first);
    await expired(idp, second);
    // had an old, rotated refresh token been reused, the provider would have revoked the grant
    assert.ok((await scanWithAccount(account, imap, guard, opts, hooks)).ok);
    assert.ok((idp.grants.get('refresh_token') ?? 0) > after);
    assert.ok(!idp.grantErrors.includes('invalid_grant'));
  });

  test('callers waiting for a token at once share one refresh', async () => {
    const account = await deviceAccount(idp);
    const held = await account.accessToken();
    assert.ok(held.ok);
    await expired(idp, held.token);
    // The account dates a token from when its answer arrived, which on a loaded machine is later
    // than the provider dates it: wait until the account, too, sees it expired.
    await new Promise((r) => setTimeout(r, Math.max(0, held.expiresAt - Date.now()) + 10));
    const before = idp.grants.get('refresh_token') ?? 0;
    const tokens = await Promise.all(Array.from({ length: 5 }, () => tokenOf(account)));
    assert.equal(new Set(tokens).size, 1);
    assert.equal(idp.grants.get('refresh_token'), before + 1);
  });

  test('mailto unsubscriptions go out over SMTP XOAUTH2 from the signed-in address, refreshed when needed', async () => {
    const account = await deviceAccount(idp);
    const sender = () => senderFor(account);
    const one = sender();
    const sent = await one.send(mailto('leave@list.example'));
    await one.close();
    assert.ok(sent.ok, !sent.ok ? sent.detail : '');
    const got = sink.messages.at(-1)!;
    assert.equal(got.from, ALICE);
    assert.deepEqual(got.to, ['leave@list.example']);
    assert.equal(got.user, ALICE);
    const used = sink.oauthLogins.at(-1)!;
    assert.equal(used.accepted, true);
    // a later connection, after the token expired, signs in with a refreshed one
    await expired(idp, used.token);
    const two = sender();
    assert.ok((await two.send(mailto('leave@list.example'))).ok);
    await two.close();
    const later = sink.oauthLogins.at(-1)!;
    assert.equal(later.accepted, true);
    assert.notEqual(later.token, used.token);
  });

  test('a token the SMTP server refuses is renewed once and the message still goes', async () => {
    const account = await deviceAccount(idp);
    // revoked at the provider (RFC 7009): still unexpired, but the server will refuse it
    await idp.revokeToken(await tokenOf(account));
    const logins = sink.oauthLogins.length;
    const s = senderFor(account);
    const r = await s.send(mailto('bye@list.example'));
    await s.close();
    assert.ok(r.ok, !r.ok ? r.detail : '');
    assert.deepEqual(
      sink.oauthLogins.slice(logins).map((l) => l.accepted),
      [false, true],
    );
  });

  test('when the sign-in has ended, a mailto unsubscription fails as auth without reaching the server with a token', async () => {
    const account = await deviceAccount(idp);
    await account.forget();
    const s = senderFor(account);
    const logins = sink.oauthLogins.length;
    const r = await s.send(mailto('bye@list.example'));
    await s.close();
    assert.equal(!r.ok && r.reason, 'auth');
    assert.equal(sink.oauthLogins.length, logins);
  });
});
