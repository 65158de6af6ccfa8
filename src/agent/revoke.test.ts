/**
 * Revocation end to end on both engines: revoke by each kind of secret and by the RFC 7009
 * form, the next call refused with 401, and the SET-shaped event on the agent's stream. The
 * streams' heartbeat is an hour here, so an event can only arrive through the revocation bus;
 * one test shortens it to see an ended key reported.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type AgentApp,
  getWith,
  listen,
  postJson,
  protectedTestRoutes,
  startAgentApp,
  testClock,
  UNLIMITED,
} from '../../test/helpers/agent.ts';
import { ENGINES } from '../../test/helpers/engines.ts';
import { TOKEN_REVOKED } from './events.ts';

const anonymous = { type: 'anonymous', requested_credential_type: 'api_key' };

for (const engine of ENGINES) {
  describe(`revocation on ${engine}`, () => {
    let t: AgentApp;
    const clock = testClock();
    before(async () => {
      t = await startAgentApp(engine, {
        agent: { now: clock.now, limits: UNLIMITED, heartbeatMs: 3600_000 },
        setup: protectedTestRoutes,
      });
    });
    after(() => t.close());

    test('revoking the api_key: the next call gets 401 and the open stream gets one SET, then ends', async () => {
      const reg = (await postJson(t.origin, '/agent/auth', anonymous)).body;
      const stream = await listen(t.origin, reg.api_key);
      assert.equal(stream.status, 200);
      assert.match(stream.headers.get('content-type')!, /^text\/event-stream/);
      assert.equal(stream.headers.get('cache-control'), 'no-store');

      const r = await postJson(t.origin, '/agent/auth/revoke', { api_key: reg.api_key });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { status: 'revoked' });
      assert.equal(r.headers.get('cache-control'), 'no-store');

      const denied = await getWith(t.origin, '/test/needs-inbox-read', reg.api_key);
      assert.equal(denied.status, 401);
      assert.equal(denied.body.error, 'invalid_token');
      assert.match(denied.headers.get('www-authenticate')!, /^Bearer error="invalid_token"/);

      const ev = await stream.next();
      assert.equal(ev.event, 'credential.revoked');
      const set = JSON.parse(ev.data);
      // RFC 8417 §2.2: iss, iat, jti and events; the subject as an RFC 9493 opaque sub_id
      assert.equal(set.iss, t.config.baseUrl);
      assert.equal(set.jti, ev.id);
      assert.match(set.jti, /^evt_/);
      assert.equal(typeof set.iat, 'number');
      assert.ok(Math.abs(set.iat - clock.now() / 1000) < 2);
      assert.deepEqual(set.sub_id, { format: 'opaque', id: reg.registration_id });
      assert.deepEqual(Object.keys(set.events), [TOKEN_REVOKED]);
      const body = set.events[TOKEN_REVOKED];
      assert.equal(body.credential_type, 'api_key');
      assert.equal(body.reason, 'revoked_by_agent');
      assert.ok(reg.api_key.startsWith(body.credential_hint.replace('…', '')));
      assert.ok(body.credential_hint.length < 20, 'a hint, not the key');
      await stream.end();

      const reconnect = await listen(t.origin, reg.api_key);
      assert.equal(reconnect.status, 401);
      assert.equal((await reconnect.body()).error, 'invalid_token');
    });

    test('revoking by claim_token ends the registration: key refused, claim refused', async () => {
      const reg = (await postJson(t.origin, '/agent/auth', anonymous)).body;
      const stream = await listen(t.origin, reg.api_key);
      const r = await postJson(t.origin, '/agent/auth/revoke', { claim_token: reg.claim_token });
      assert.deepEqual(r.body, { status: 'revoked' });
      assert.equal(JSON.parse((await stream.next()).data).sub_id.id, reg.registration_id);
      assert.equal((await getWith(t.origin, '/test/needs-inbox-read', reg.api_key)).status, 401);
      const claim = await postJson(t.origin, '/agent/auth/claim', {
        claim_token: reg.claim_token,
        email: 'x@example.test',
      });
      assert.equal(claim.status, 401);
      assert.equal(claim.body.error, 'invalid_claim_token');
    });

    test('the RFC 7009 form revokes too, with or without a hint, whatever the hint says', async () => {
      for (const hint of [undefined, 'access_token', 'refresh_token']) {
        const reg = (await postJson(t.origin, '/agent/auth', anonymous)).body;
        const form = new URLSearchParams({ token: reg.api_key, ...(hint ? { token_type_hint: hint } : {}) });
        const res = await fetch(`${t.origin}/agent/auth/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form.toString(),
        });
        assert.equal(res.status, 200);
        assert.deepEqual(await res.json(), { status: 'revoked' });
        assert.equal((await getWith(t.origin, '/test/needs-inbox-read', reg.api_key)).status, 401);
      }
    });

    test('revoking is idempotent and answers 200 for unknown tokens (RFC 7009 §2.2)', async () => {
      const reg = (await postJson(t.origin, '/agent/auth', anonymous)).body;
      for (let i = 0; i < 2; i++) {
        const r = await postJson(t.origin, '/agent/auth/revoke', { api_key: reg.api_key });
        assert.equal(r.status, 200);
      }
      for (const body of [
        { api_key: 'sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
        { claim_token: 'clm_nope' },
        { access_token: 'at_nope' },
        { token: 'something-else' },
      ]) {
        const r = await postJson(t.origin, '/agent/auth/revoke', body);
        assert.equal(r.status, 200);
        assert.deepEqual(r.body, { status: 'revoked' });
      }
    });

    test('an unclaimed key reaching its end is reported on the stream as expired', async () => {
      const short = await startAgentApp(engine, { agent: { now: clock.now, limits: UNLIMITED, heartbeatMs: 50 } });
      try {
        const reg = (await postJson(short.origin, '/agent/auth', anonymous)).body;
        const stream = await listen(short.origin, reg.api_key);
        clock.advance(24 * 3600 + 1);
        const set = JSON.parse((await stream.next()).data);
        assert.equal(set.events[TOKEN_REVOKED].reason, 'expired');
        assert.equal(set.events[TOKEN_REVOKED].revoked_at, reg.credential_expires);
        await stream.end();
      } finally {
        await short.close();
      }
    });

    test('the stream needs a live credential: 401 names the resource metadata', async () => {
      const none = await listen(t.origin, undefined);
      assert.equal(none.status, 401);
      const challenge = none.headers.get('www-authenticate')!;
      assert.equal(challenge, `Bearer resource_metadata="${t.config.baseUrl}/.well-known/oauth-protected-resource"`);
      assert.equal((await none.body()).error, 'invalid_token');
      const bogus = await listen(t.origin, 'sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
      assert.equal(bogus.status, 401);
      assert.match(bogus.headers.get('www-authenticate')!, /error="invalid_token"/);
      assert.match(
        bogus.headers.get('www-authenticate')!,
        /resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource"/,
      );
    });

    test('shutting down ends open streams instead of waiting for agents to hang up', async () => {
      const other = await startAgentApp(engine, { agent: { limits: UNLIMITED } });
      const reg = (await postJson(other.origin, '/agent/auth', anonymous)).body;
      const stream = await listen(other.origin, reg.api_key);
      assert.equal(stream.status, 200);
      await other.close();
      await stream.end();
    });
  });
}
