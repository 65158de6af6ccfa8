import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openPglite } from '../storage/db.ts';
import { migrate } from '../storage/migrate.ts';
import type { OAuthAccount } from './account.ts';
import { createFlowSealer } from './flow-cookie.ts';
import { cookieNames, createSessions, flowCookie, readCookie, sessionCookie } from './sessions.ts';

function fakeAccount(email: string): OAuthAccount & { forgotten: boolean[] } {
  let active = true;
  const forgotten: boolean[] = [];
  return {
    email,
    idToken: undefined,
    forgotten,
    get active() {
      return active;
    },
    accessToken: async () => ({ ok: true, token: 't', expiresAt: Date.now() + 1000 }),
    renew: async () => ({ ok: true, token: 't', expiresAt: Date.now() + 1000 }),
    async forget(revoke = true) {
      active = false;
      forgotten.push(revoke);
    },
  };
}

describe('sign-in cookies', () => {
  test('over http they are HttpOnly, SameSite=Lax and not Secure', () => {
    const names = cookieNames('http://127.0.0.1:3000');
    assert.deepEqual(names, { session: 'optout_ms', flow: 'optout_ms_flow', secure: false });
    assert.equal(sessionCookie(names, 'abc'), 'optout_ms=abc; Max-Age=3600; Path=/; HttpOnly; SameSite=Lax');
    assert.equal(
      flowCookie(names, 'sealed'),
      'optout_ms_flow=sealed; Max-Age=600; Path=/auth/microsoft; HttpOnly; SameSite=Lax',
    );
  });

  test('over https they are Secure and carry the __Host- / __Secure- prefixes', () => {
    const names = cookieNames('https://optout.example');
    assert.equal(
      sessionCookie(names, 'abc'),
      '__Host-optout_ms=abc; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Lax',
    );
    assert.match(flowCookie(names, 'x'), /^__Secure-optout_ms_flow=x; .*; Secure; SameSite=Lax$/);
  });

  test('clearing a cookie sets it empty with Max-Age=0', () => {
    const names = cookieNames('http://h');
    assert.equal(sessionCookie(names, null), 'optout_ms=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
    assert.match(flowCookie(names, null), /^optout_ms_flow=; Max-Age=0;/);
  });

  test('a cookie is read by name from a Cookie header', () => {
    assert.equal(readCookie('a=1; optout_ms=xyz; b=2', 'optout_ms'), 'xyz');
    assert.equal(readCookie('a=1', 'optout_ms'), undefined);
    assert.equal(readCookie(undefined, 'optout_ms'), undefined);
  });
});

describe('browser sessions', () => {
  test('an id finds its account until the session ends, and ending forgets the tokens', async () => {
    const sessions = createSessions();
    const acct = fakeAccount('a@example.test');
    const id = sessions.create(acct);
    assert.match(id, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(sessions.get(id), acct);
    assert.equal(sessions.get('nope'), null);
    assert.equal(sessions.get(undefined), null);
    assert.equal(await sessions.end(id), acct);
    assert.deepEqual(acct.forgotten, [true]);
    assert.equal(sessions.get(id), null);
    assert.equal(await sessions.end(id), null);
    await sessions.close();
  });

  test('a session past its lifetime is gone', async () => {
    const sessions = createSessions(30);
    const id = sessions.create(fakeAccount('a@example.test'));
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(sessions.get(id), null);
    await sessions.close();
  });

  test('an account whose refresh token was refused no longer counts as signed in', async () => {
    const sessions = createSessions();
    const acct = fakeAccount('a@example.test');
    const id = sessions.create(acct);
    await acct.forget(false);
    assert.equal(sessions.get(id), null);
    await sessions.close();
  });

  test('shutting down forgets every session without calling the provider', async () => {
    const sessions = createSessions();
    const a = fakeAccount('a@example.test');
    sessions.create(a);
    await sessions.close();
    assert.deepEqual(a.forgotten, [false]);
    assert.equal(sessions.size, 0);
  });
});

describe('sealed sign-in state', () => {
  test('opens on any instance sharing the database, and nowhere else', async () => {
    const db = await openPglite(undefined);
    try {
      await migrate(db);
      const a = await createFlowSealer(db);
      const b = await createFlowSealer(db);
      const checks = { state: 's-1', nonce: 'n-1', verifier: 'v'.repeat(43) };
      const sealed = await a.seal(checks);
      assert.ok(!sealed.includes('s-1') && !sealed.includes(Buffer.from('v'.repeat(43)).toString('base64url')));
      assert.deepEqual(await b.open(sealed), checks);
      // any change to the sealed value is detected
      const parts = sealed.split('.');
      parts[3] = `${parts[3]!.slice(0, -2)}${parts[3]!.endsWith('AA') ? 'BB' : 'AA'}`;
      assert.equal(await b.open(parts.join('.')), null);
      assert.equal(await b.open('not-a-jwe'), null);
      assert.equal(await b.open(''), null);
      // a deployment with another database has another key
      await db.query(`delete from app_secrets where name = 'oauth-flow-seal'`);
      const elsewhere = await createFlowSealer(db);
      assert.equal(await elsewhere.open(sealed), null);
    } finally {
      await db.close();
    }
  });
});
