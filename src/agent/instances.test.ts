/**
 * Two instances on one PostgreSQL, as behind a load balancer: a registration, its claim, its
 * wrong codes and its revocation are seen by both at once, and a revocation on one reaches a
 * stream held by the other (LISTEN/NOTIFY; the streams' heartbeat is an hour, so nothing else
 * could deliver it in time).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type AgentApp,
  claimLinkFor,
  getWith,
  listen,
  postJson,
  pressForCode,
  SINK_PASSWORD,
  SINK_USER,
  startAgentApp,
  startSecondInstance,
  UNLIMITED,
} from '../../test/helpers/agent.ts';
import { type SmtpSink, startSmtpSink } from '../../test/helpers/smtp-sink.ts';
import { trustTestCa } from '../../test/helpers/tls-ca.ts';
import { TOKEN_REVOKED } from './events.ts';

describe('agent registration across two instances on PostgreSQL', () => {
  let sink: SmtpSink;
  let a: AgentApp;
  let b: AgentApp;
  const agent = { limits: UNLIMITED, heartbeatMs: 3600_000 };

  before(async () => {
    trustTestCa();
    sink = await startSmtpSink({ user: SINK_USER, password: SINK_PASSWORD, tls: 'starttls' });
    a = await startAgentApp('PostgreSQL', { sink, agent });
    b = await startSecondInstance(a, { sink, agent });
  });
  after(async () => {
    await b.close();
    await a.close();
    await sink.close();
  });

  test('register on one, claim through the other, wrong codes counted across both', async () => {
    const reg = (await postJson(a.origin, '/agent/auth', { type: 'anonymous', requested_credential_type: 'api_key' }))
      .body;
    assert.equal((await getWith(b.origin, '/agent/auth/events', 'not-a-key')).status, 401);
    const email = 'shared@example.test';
    const claim = await postJson(b.origin, '/agent/auth/claim', { claim_token: reg.claim_token, email });
    assert.equal(claim.status, 200);
    const again = await postJson(a.origin, '/agent/auth/claim', { claim_token: reg.claim_token, email });
    assert.deepEqual(again.body, claim.body, 'the other instance sees the running claim: no second email');
    const otp = await pressForCode(a.origin, await claimLinkFor(sink, email));
    const wrong = String((Number(otp) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 5; i++) {
      const r = await postJson(i % 2 ? a.origin : b.origin, '/agent/auth/claim/complete', {
        claim_token: reg.claim_token,
        otp: wrong,
      });
      assert.equal(r.body.error, 'otp_invalid');
    }
    const dead = await postJson(a.origin, '/agent/auth/claim/complete', { claim_token: reg.claim_token, otp });
    assert.equal(dead.body.error, 'otp_expired', 'five wrong codes on two instances are five');
    assert.equal(sink.messages.filter((m) => m.to.includes(email)).length, 1);
  });

  test('wrong codes sent to both instances at once never exceed the limit', async () => {
    const reg = (await postJson(a.origin, '/agent/auth', { type: 'anonymous', requested_credential_type: 'api_key' }))
      .body;
    const email = 'race@example.test';
    await postJson(a.origin, '/agent/auth/claim', { claim_token: reg.claim_token, email });
    const otp = await pressForCode(b.origin, await claimLinkFor(sink, email));
    const wrong = String((Number(otp) + 7) % 1_000_000).padStart(6, '0');
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        postJson(i % 2 ? a.origin : b.origin, '/agent/auth/claim/complete', {
          claim_token: reg.claim_token,
          otp: wrong,
        }),
      ),
    );
    assert.equal(results.filter((r) => r.body.error === 'otp_invalid').length, 5);
    assert.equal(results.filter((r) => r.body.error === 'otp_expired').length, 7);
  });

  test('a revocation on one instance reaches a stream held by the other, and both refuse the key', async () => {
    const reg = (await postJson(a.origin, '/agent/auth', { type: 'anonymous', requested_credential_type: 'api_key' }))
      .body;
    const stream = await listen(b.origin, reg.api_key);
    assert.equal(stream.status, 200);
    const r = await postJson(a.origin, '/agent/auth/revoke', { api_key: reg.api_key });
    assert.equal(r.status, 200);
    const set = JSON.parse((await stream.next(10_000)).data);
    assert.equal(set.sub_id.id, reg.registration_id);
    assert.equal(set.events[TOKEN_REVOKED].reason, 'revoked_by_agent');
    for (const origin of [a.origin, b.origin]) {
      assert.equal((await getWith(origin, '/agent/auth/events', reg.api_key)).status, 401);
    }
  });
});
