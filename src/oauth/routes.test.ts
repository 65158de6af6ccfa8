/**
 * The browser sign-in with Microsoft, driven over HTTP against a real identity provider
 * (oidc-provider on loopback, test/helpers/oidc-idp.ts) with optout configured through the
 * OAUTH_* variables.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp } from '../../test/helpers/app.ts';
import { createHttpBrowser, signIn } from '../../test/helpers/http-browser.ts';
import { type OAuthStack, startOAuthStack } from '../../test/helpers/oauth-stack.ts';
import { createTestDatabase } from '../../test/helpers/postgres.ts';

const ALICE = 'alice@example.test';

const errorOf = (url: string) => new URL(url).searchParams.get('oauth_error');

describe('browser sign-in with Microsoft', () => {
  let s: OAuthStack;
  before(async () => {
    s = await startOAuthStack();
  });
  after(() => s.close());

  test('start redirects to the provider with code, PKCE S256, state, nonce and the configured scopes', async () => {
    const b = createHttpBrowser();
    const res = await b.request(`${s.base}/auth/microsoft/start`);
    assert.equal(res.status, 302);
    const to = new URL(res.headers.get('location')!);
    assert.equal(to.origin, s.idp.issuer);
    const q = to.searchParams;
    assert.equal(q.get('response_type'), 'code');
    assert.equal(q.get('client_id'), s.idp.clientId);
    assert.equal(q.get('redirect_uri'), `${s.base}/auth/microsoft/callback`);
    assert.equal(q.get('code_challenge_method'), 'S256');
    assert.match(q.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
    assert.match(q.get('state')!, /^[A-Za-z0-9_-]{20,}$/);
    assert.match(q.get('nonce')!, /^[A-Za-z0-9_-]{20,}$/);
    assert.deepEqual(q.get('scope')!.split(' '), s.app.config.oauth.scopes);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const flow = b.cookie(`${s.base}/auth/microsoft/callback`, 'optout_ms_flow')!;
    assert.ok(flow, 'the sign-in cookie is set');
    assert.equal(flow.httpOnly, true);
    assert.equal(flow.sameSite, 'lax');
    assert.equal(flow.path, '/auth/microsoft');
    assert.equal(flow.secure, false, 'BASE_URL is http');
    // sealed: neither the state nor anything else readable is in it
    assert.ok(!flow.value.includes(q.get('state')!));
    assert.equal(b.cookie(`${s.base}/`, 'optout_ms_flow'), undefined, 'not sent to other paths');
  });

  test('signing in keeps the tokens on the server and gives the browser an opaque session cookie', async () => {
    const b = createHttpBrowser();
    const page = await signIn(b, `${s.base}/auth/microsoft/start`, ALICE);
    assert.equal(page.url, `${s.base}/`);
    assert.equal(page.status, 200);
    const callback = b.hops.find((h) => h.url.startsWith(`${s.base}/auth/microsoft/callback`))!;
    assert.equal(callback.status, 303);
    assert.equal(callback.location, '/');
    const session = b.cookie(`${s.base}/`, 'optout_ms')!;
    assert.ok(session);
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'lax');
    assert.equal(session.path, '/');
    assert.ok(session.expires - Date.now() <= 3600_000 && session.expires - Date.now() > 3500_000, 'one hour');
    assert.match(session.value, /^[A-Za-z0-9_-]{43}$/);
    for (const token of s.idp.issued) assert.ok(!callback.setCookies.join().includes(token));
    assert.equal(b.cookie(`${s.base}/auth/microsoft/callback`, 'optout_ms_flow'), undefined, 'single use');
    const who = await (await b.request(`${s.base}/auth/microsoft/session`)).json();
    assert.deepEqual(who, { configured: true, signed_in: true, email: ALICE });
    assert.deepEqual(await (await fetch(`${s.base}/auth/microsoft/session`)).json(), {
      configured: true,
      signed_in: false,
    });
  });

  test('refusing consent comes back as OAUTH_CONSENT_REFUSED and signs nobody in', async () => {
    const b = createHttpBrowser();
    const page = await signIn(b, `${s.base}/auth/microsoft/start`, ALICE, { deny: true });
    assert.equal(errorOf(page.url), 'OAUTH_CONSENT_REFUSED');
    assert.equal(b.cookie(`${s.base}/`, 'optout_ms'), undefined);
  });

  test('a callback without its sign-in cookie, or with another sign-in’s, is refused', async () => {
    const b = createHttpBrowser();
    const atCallback = (u: string) => u.startsWith(`${s.base}/auth/microsoft/callback`);
    const first = await signIn(b, `${s.base}/auth/microsoft/start`, ALICE, { stopAt: atCallback });
    // a second sign-in in the same browser replaces the sealed checks
    await b.request(`${s.base}/auth/microsoft/start`);
    const crossed = await b.go(first.url);
    assert.equal(errorOf(crossed.url), 'OAUTH_SIGN_IN_FAILED');
    const stranger = createHttpBrowser();
    const third = await signIn(b, `${s.base}/auth/microsoft/start`, ALICE, { stopAt: atCallback });
    assert.equal(errorOf((await stranger.go(third.url)).url), 'OAUTH_SIGN_IN_FAILED');
    assert.equal(stranger.cookie(`${s.base}/`, 'optout_ms'), undefined);
  });

  test('a code is used once: replaying the callback fails', async () => {
    const b = createHttpBrowser();
    const atCallback = (u: string) => u.startsWith(`${s.base}/auth/microsoft/callback`);
    const cb = await signIn(b, `${s.base}/auth/microsoft/start`, ALICE, { stopAt: atCallback });
    const flow = b.cookieHeader(cb.url);
    assert.equal((await b.go(cb.url)).url, `${s.base}/`);
    // an attacker who captured both the URL and the sign-in cookie
    const replay = await fetch(cb.url, { headers: { cookie: flow }, redirect: 'manual' });
    assert.equal(errorOf(new URL(replay.headers.get('location')!, s.base).href), 'OAUTH_SIGN_IN_FAILED');
  });

  test('signing out forgets the tokens, clears the cookie and ends the provider session', async () => {
    const b = createHttpBrowser();
    await signIn(b, `${s.base}/auth/microsoft/start`, ALICE);
    const revokedBefore = s.idp.revokedGrants;
    const res = await b.request(`${s.base}/auth/microsoft/signout`, { method: 'POST', origin: s.base });
    assert.equal(res.status, 303);
    const to = new URL(res.headers.get('location')!);
    assert.equal(`${to.origin}${to.pathname}`, `${s.idp.issuer}/session/end`);
    assert.equal(to.searchParams.get('post_logout_redirect_uri'), `${s.base}/`);
    assert.ok(to.searchParams.get('id_token_hint'));
    assert.equal(b.cookie(`${s.base}/`, 'optout_ms'), undefined, 'cookie cleared');
    assert.equal(s.idp.revokedGrants, revokedBefore + 1, 'refresh token revoked at the provider');
    const who = (await (await b.request(`${s.base}/auth/microsoft/session`)).json()) as { signed_in: boolean };
    assert.equal(who.signed_in, false);
    // signing out again, or without a session, just goes home
    const again = await b.request(`${s.base}/auth/microsoft/signout`, { method: 'POST' });
    assert.equal(again.status, 303);
    assert.equal(again.headers.get('location'), '/');
  });

  test('a sign-out posted from another site is refused', async () => {
    const b = createHttpBrowser();
    await signIn(b, `${s.base}/auth/microsoft/start`, ALICE);
    const res = await b.request(`${s.base}/auth/microsoft/signout`, {
      method: 'POST',
      origin: 'https://evil.example',
    });
    assert.equal(res.status, 403);
    const who = (await (await b.request(`${s.base}/auth/microsoft/session`)).json()) as { signed_in: boolean };
    assert.equal(who.signed_in, true);
  });

  test('an identity provider that is down is reported as OAUTH_PROVIDER_UNAVAILABLE', async () => {
    // a second instance that has not talked to the provider yet
    const other = await startTestApp({ env: s.env });
    try {
      await s.idp.down();
      const res = await other.app.inject({ url: '/auth/microsoft/start' });
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, '/?oauth_error=OAUTH_PROVIDER_UNAVAILABLE');
      // once it is back, signing in works without a restart
      await s.idp.up();
      const again = await other.app.inject({ url: '/auth/microsoft/start' });
      assert.equal(again.statusCode, 302);
      assert.ok(String(again.headers.location).startsWith(s.idp.issuer));
    } finally {
      await s.idp.up();
      await other.close();
    }
  });
});

describe('Microsoft sign-in without OAUTH_CLIENT_ID', () => {
  test('is reported as not configured, never as a broken redirect', async () => {
    const t = await startTestApp();
    try {
      const res = await t.app.inject({ url: '/auth/microsoft/start' });
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, '/?oauth_error=OAUTH_NOT_CONFIGURED');
      const callback = await t.app.inject({ url: '/auth/microsoft/callback?code=x&state=y' });
      assert.equal(callback.headers.location, '/?oauth_error=OAUTH_NOT_CONFIGURED');
      assert.deepEqual(JSON.parse((await t.app.inject({ url: '/auth/microsoft/session' })).body), {
        configured: false,
        signed_in: false,
      });
    } finally {
      await t.close();
    }
  });
});

describe('Microsoft sign-in on two instances', () => {
  test('a callback that lands on another instance completes the sign-in there', async () => {
    const pg = await createTestDatabase();
    const a = await startOAuthStack({ databaseUrl: pg.url });
    const b = await startTestApp({ env: a.env, databaseUrl: pg.url });
    try {
      const port = await b.app.listen({ port: 0, host: '127.0.0.1' }).then((u) => new URL(u).port);
      const browser = createHttpBrowser();
      const cb = await signIn(browser, `${a.base}/auth/microsoft/start`, ALICE, {
        stopAt: (u) => u.startsWith(`${a.base}/auth/microsoft/callback`),
      });
      // the load balancer sends the callback to instance B
      const onB = new URL(cb.url);
      onB.port = port;
      const res = await browser.request(onB.href);
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), '/');
      assert.equal(b.runtime.oauth.sessions.size, 1);
      assert.equal(a.app.runtime.oauth.sessions.size, 0, 'tokens only where the sign-in completed');
    } finally {
      await b.close();
      await a.close();
      await pg.drop();
    }
  });
});
