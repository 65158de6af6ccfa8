/**
 * The device-code sign-in (RFC 8628) against a real identity provider (oidc-provider on
 * loopback), approved or refused by a person's HTTP client on "another device".
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { approveDevice } from '../../test/helpers/http-browser.ts';
import { type Idp, type IdpOptions, startIdp } from '../../test/helpers/oidc-idp.ts';
import { trustTestCa } from '../../test/helpers/tls-ca.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../log.ts';
import { createOAuthClient } from './client.ts';
import { startDeviceSignIn } from './device.ts';

const ALICE = 'alice@example.test';

function clientFor(idp: Idp) {
  const config = loadConfig({ OAUTH_ISSUER: idp.issuer, OAUTH_CLIENT_ID: idp.clientId });
  return createOAuthClient(config.oauth, createLogger('silent'));
}

async function withIdp(opts: IdpOptions, fn: (idp: Idp) => Promise<void>) {
  const idp = await startIdp(opts);
  try {
    await fn(idp);
  } finally {
    await idp.stop();
  }
}

describe('device-code sign-in', () => {
  let idp: Idp;
  before(async () => {
    trustTestCa();
    idp = await startIdp({ deviceInterval: 1 });
  });
  after(() => idp.stop());

  test('start answers the code to show; approval on another device signs the account in', async () => {
    const started = await startDeviceSignIn(clientFor(idp));
    assert.ok(started.ok);
    const { flow } = started;
    assert.equal(flow.verification_uri, `${idp.issuer}/device`);
    assert.match(flow.user_code, /^[A-Z]{4}-[A-Z]{4}$/);
    assert.equal(flow.interval, 1);
    const ttl = Date.parse(flow.expires_at) - Date.now();
    assert.ok(ttl > 590_000 && ttl <= 600_000, `expires in ~10 min, got ${ttl}`);
    const polls = idp.devicePolls.length;
    await approveDevice(flow.verification_uri, flow.user_code, ALICE);
    const r = await flow.result;
    assert.ok(r.ok);
    assert.equal(r.account.email, ALICE);
    const token = await r.account.accessToken();
    assert.ok(token.ok);
    const seen = await idp.introspect(token.token);
    assert.equal(seen.active, true);
    assert.equal(seen.sub, ALICE);
    assert.ok(idp.devicePolls.length > polls);
  });

  test('polls are at least `interval` apart and stop once the result is in', async () => {
    const started = await startDeviceSignIn(clientFor(idp));
    assert.ok(started.ok);
    const from = idp.devicePolls.length;
    // let it poll "pending" a few times before the person gets to it
    while (idp.devicePolls.length - from < 3) await new Promise((r) => setTimeout(r, 100));
    await approveDevice(started.flow.verification_uri, started.flow.user_code, ALICE);
    assert.ok((await started.flow.result).ok);
    const mine = idp.devicePolls.slice(from);
    for (let i = 1; i < mine.length; i++)
      assert.ok(mine[i]! - mine[i - 1]! >= 950, `gap ${mine[i]! - mine[i - 1]!} ms`);
    const count = idp.devicePolls.length;
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(idp.devicePolls.length, count, 'no poll after the result');
  });

  test('a person who refuses gets OAUTH_CONSENT_REFUSED', async () => {
    const started = await startDeviceSignIn(clientFor(idp));
    assert.ok(started.ok);
    await approveDevice(started.flow.verification_uri, started.flow.user_code, ALICE, { deny: true });
    const r = await started.flow.result;
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.code, 'OAUTH_CONSENT_REFUSED');
  });

  test('cancel stops the polling', async () => {
    const started = await startDeviceSignIn(clientFor(idp));
    assert.ok(started.ok);
    started.flow.cancel();
    const r = await started.flow.result;
    assert.equal(!r.ok && r.code, 'OAUTH_SIGN_IN_FAILED');
    const count = idp.devicePolls.length;
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(idp.devicePolls.length, count);
  });

  test('a provider that is down when the sign-in starts gives OAUTH_PROVIDER_UNAVAILABLE', async () => {
    const client = clientFor(idp);
    await idp.down();
    try {
      const started = await startDeviceSignIn(client);
      assert.equal(!started.ok && started.code, 'OAUTH_PROVIDER_UNAVAILABLE');
    } finally {
      await idp.up();
    }
  });

  test('a provider that goes away while polling is waited for, with backoff, until it is back', async () => {
    const started = await startDeviceSignIn(clientFor(idp));
    assert.ok(started.ok);
    await idp.down();
    // the first poll (after 1 s) fails; the next comes after 2 s, doubled (RFC 8628 §3.5)
    await new Promise((r) => setTimeout(r, 1500));
    const before = idp.devicePolls.length;
    await idp.up();
    await approveDevice(started.flow.verification_uri, started.flow.user_code, ALICE);
    const r = await started.flow.result;
    assert.ok(r.ok, 'signed in once the provider answered again');
    assert.ok(idp.devicePolls.length > before);
  });
});

describe('device-code sign-in, provider rules', () => {
  test('a code not used in time ends with OAUTH_DEVICE_CODE_EXPIRED', async () => {
    await withIdp({ deviceInterval: 1, deviceCodeTtl: 2 }, async (idp) => {
      trustTestCa();
      const started = await startDeviceSignIn(clientFor(idp));
      assert.ok(started.ok);
      const r = await started.flow.result;
      assert.equal(!r.ok && r.code, 'OAUTH_DEVICE_CODE_EXPIRED');
      assert.ok(idp.grantErrors.includes('expired_token'), 'the provider said so (RFC 8628 §3.5)');
    });
  });

  test('slow_down adds 5 seconds to the interval', async () => {
    // the provider wants 3 s between polls although it advertised 1 s
    await withIdp({ deviceInterval: 1, minPollSeconds: 3 }, async (idp) => {
      trustTestCa();
      const started = await startDeviceSignIn(clientFor(idp));
      assert.ok(started.ok);
      while (!idp.grantErrors.includes('slow_down')) await new Promise((r) => setTimeout(r, 100));
      await approveDevice(started.flow.verification_uri, started.flow.user_code, ALICE);
      const r = await started.flow.result;
      assert.ok(r.ok);
      const polls = idp.devicePolls;
      assert.ok(polls.length >= 3, 'pending, slow_down, then at least one more');
      assert.ok(polls[2]! - polls[1]! >= 6000 - 50, `waited ${polls[2]! - polls[1]!} ms after slow_down`);
    });
  });
});
