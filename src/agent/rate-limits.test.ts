/**
 * Per-IP limits on every agent endpoint and the per-address limit on claim emails, on both
 * engines (in memory on the embedded database, in PostgreSQL otherwise). Small limits are
 * injected so each is reached in a few requests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type AgentApp,
  claimLinkFor,
  getWith,
  listen,
  postJson,
  SINK_PASSWORD,
  SINK_USER,
  startAgentApp,
} from '../../test/helpers/agent.ts';
import { ENGINES } from '../../test/helpers/engines.ts';
import { type SmtpSink, startSmtpSink } from '../../test/helpers/smtp-sink.ts';
import { trustTestCa } from '../../test/helpers/tls-ca.ts';
import { DEFAULT_AGENT_SETTINGS } from './settings.ts';

const L = DEFAULT_AGENT_SETTINGS.limits;
const limits = {
  register: { ...L.register, points: 6 },
  claim: { ...L.claim, points: 2 },
  claimPage: { ...L.claimPage, points: 2 },
  complete: { ...L.complete, points: 2 },
  revoke: { ...L.revoke, points: 2 },
  events: { ...L.events, points: 1 },
  mailPerAddress: { ...L.mailPerAddress, points: 2 },
};

function assertLimited(r: { status: number; headers: Headers; body?: { error?: string } }, points: number) {
  assert.equal(r.status, 429);
  if (r.body) assert.equal(r.body.error, 'rate_limited');
  assert.ok(Number(r.headers.get('retry-after')) > 0, 'Retry-After');
  if (r.body) assert.equal(r.headers.get('ratelimit-limit'), String(points));
}

for (const engine of ENGINES) {
  describe(`agent rate limits on ${engine}`, () => {
    let sink: SmtpSink;
    let t: AgentApp;
    before(async () => {
      trustTestCa();
      sink = await startSmtpSink({ user: SINK_USER, password: SINK_PASSWORD, tls: 'starttls' });
      t = await startAgentApp(engine, { sink, agent: { limits } });
    });
    after(async () => {
      await t.close();
      await sink.close();
    });

    test('claim emails to one address are limited whoever asks; the refused registration leaves nothing', async () => {
      const body = { type: 'identity_assertion', assertion_type: 'verified_email', assertion: 'Flood@Example.test' };
      for (let i = 0; i < 2; i++) assert.equal((await postJson(t.origin, '/agent/auth', body)).status, 200);
      // the address is compared case-insensitively
      const third = await postJson(t.origin, '/agent/auth', { ...body, assertion: 'flood@example.TEST' });
      assert.equal(third.status, 429);
      assert.equal(third.body.error, 'rate_limited');
      await claimLinkFor(sink, 'Flood@Example.test', 2);
      const { rows } = await t.db.query<{ n: number }>(
        "select count(*)::int as n from agent_registrations where kind = 'verified_email'",
      );
      assert.equal(rows[0]!.n, 2);
    });

    test('registration, claim, completion and revocation each refuse past their limit with 429', async () => {
      const regs = [];
      for (let i = 0; i < 3; i++) {
        const r = await postJson(t.origin, '/agent/auth', { type: 'anonymous', requested_credential_type: 'api_key' });
        assert.equal(r.status, 200);
        regs.push(r.body);
      }
      // 3 verified + 3 anonymous so far: the 7th registration from this client is refused
      assertLimited(
        await postJson(t.origin, '/agent/auth', { type: 'anonymous', requested_credential_type: 'api_key' }),
        6,
      );

      for (let i = 0; i < 2; i++) {
        const r = await postJson(t.origin, '/agent/auth/claim', {
          claim_token: regs[i].claim_token,
          email: `c${i}@example.test`,
        });
        assert.equal(r.status, 200);
      }
      assertLimited(
        await postJson(t.origin, '/agent/auth/claim', { claim_token: regs[2].claim_token, email: 'c2@example.test' }),
        2,
      );

      for (let i = 0; i < 2; i++) {
        const r = await postJson(t.origin, '/agent/auth/claim/complete', {
          claim_token: regs[0].claim_token,
          otp: '000000',
        });
        assert.notEqual(r.status, 429);
      }
      assertLimited(
        await postJson(t.origin, '/agent/auth/claim/complete', { claim_token: regs[0].claim_token, otp: '000000' }),
        2,
      );

      for (let i = 0; i < 2; i++)
        assert.equal((await postJson(t.origin, '/agent/auth/revoke', { token: 'x' })).status, 200);
      assertLimited(await postJson(t.origin, '/agent/auth/revoke', { token: 'x' }), 2);

      const stream = await listen(t.origin, regs[1].api_key);
      assert.equal(stream.status, 200);
      const second = await getWith(t.origin, '/agent/auth/events', regs[1].api_key);
      assertLimited(second, 1);
      stream.close();
    });

    test('the claim page button is limited and answers with a page', async () => {
      const link = await claimLinkFor(sink, 'c0@example.test');
      const token = new URL(link).searchParams.get('token')!;
      const press = () =>
        fetch(`${t.origin}/agent/auth/claim/view`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token }).toString(),
        });
      for (let i = 0; i < 2; i++) assert.equal((await press()).status, 200);
      const refused = await press();
      assert.equal(refused.status, 429);
      assert.match(refused.headers.get('content-type')!, /^text\/html/);
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
    });
  });
}
