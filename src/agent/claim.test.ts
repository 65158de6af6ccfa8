/**
 * Registration and claim end to end, on both storage engines: the agent's calls over HTTP, the
 * claim email through a real SMTP server (STARTTLS, login), the person's page and button over
 * HTTP, and the credential used on routes behind the shared Bearer middleware.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type AgentApp,
  claimLinkFor,
  getWith,
  postJson,
  pressForCode,
  protectedTestRoutes,
  SINK_PASSWORD,
  SINK_USER,
  startAgentApp,
  testClock,
  UNLIMITED,
} from '../../test/helpers/agent.ts';
import { ENGINES } from '../../test/helpers/engines.ts';
import { type SmtpSink, startSmtpSink } from '../../test/helpers/smtp-sink.ts';
import { trustTestCa } from '../../test/helpers/tls-ca.ts';
import { POST_CLAIM_SCOPES, PRE_CLAIM_SCOPES } from './scopes.ts';

const wrongCode = (otp: string) => String((Number(otp) + 1) % 1_000_000).padStart(6, '0');

for (const engine of ENGINES) {
  describe(`agent registration and claim on ${engine}`, () => {
    let sink: SmtpSink;
    let t: AgentApp;
    const clock = testClock();
    let n = 0;
    const person = () => `person${++n}@example.test`;

    before(async () => {
      trustTestCa();
      sink = await startSmtpSink({ user: SINK_USER, password: SINK_PASSWORD, tls: 'starttls' });
      t = await startAgentApp(engine, {
        sink,
        agent: { now: clock.now, limits: UNLIMITED },
        setup: protectedTestRoutes,
      });
    });
    after(async () => {
      await t.close();
      await sink.close();
    });

    test('anonymous: an api_key with pre-claim scopes at once; the claim upgrades the same key in place', async () => {
      const reg = await postJson(t.origin, '/agent/auth', { type: 'anonymous', requested_credential_type: 'api_key' });
      assert.equal(reg.status, 200);
      assert.equal(reg.headers.get('cache-control'), 'no-store');
      const b = reg.body;
      assert.match(b.api_key, /^sk_live_[A-Za-z0-9_-]{43}$/);
      assert.equal(b.credential, b.api_key);
      assert.match(b.claim_token, /^clm_[A-Za-z0-9_-]{43}$/);
      assert.match(b.registration_id, /^reg_/);
      assert.equal(b.registration_type, 'anonymous');
      assert.equal(b.credential_type, 'api_key');
      assert.deepEqual(b.scopes, PRE_CLAIM_SCOPES);
      assert.deepEqual(b.post_claim_scopes, POST_CLAIM_SCOPES);
      assert.equal(b.claim_url, `${t.config.baseUrl}/agent/auth/claim`);
      assert.equal(Date.parse(b.credential_expires), Date.parse(b.claim_token_expires));
      assert.equal(Date.parse(b.claim_token_expires) - clock.now(), 24 * 3600 * 1000);

      const read = await getWith(t.origin, '/test/needs-inbox-read', b.api_key);
      assert.equal(read.status, 200);
      assert.deepEqual(read.body.scopes, PRE_CLAIM_SCOPES);
      const write = await getWith(t.origin, '/test/needs-inbox-write', b.api_key);
      assert.equal(write.status, 403);
      assert.equal(write.body.error, 'insufficient_scope');
      assert.match(
        write.headers.get('www-authenticate')!,
        /error="insufficient_scope", scope="inbox.write audit.read"/,
      );

      const email = person();
      const claim = await postJson(t.origin, '/agent/auth/claim', { claim_token: b.claim_token, email });
      assert.equal(claim.status, 200);
      assert.equal(claim.body.status, 'initiated');
      assert.equal(claim.body.registration_id, b.registration_id);
      assert.match(claim.body.claim_attempt_id, /^cla_/);
      assert.equal(Date.parse(claim.body.expires_at) - clock.now(), 600 * 1000);
      const link = await claimLinkFor(sink, email);
      assert.ok(link.startsWith(`${t.config.baseUrl}/agent/auth/claim/view?token=cvt_`));

      const early = await postJson(t.origin, '/agent/auth/claim/complete', {
        claim_token: b.claim_token,
        otp: '123456',
      });
      assert.equal(early.status, 400);
      assert.equal(early.body.error, 'otp_not_generated');

      const otp = await pressForCode(t.origin, link);
      const done = await postJson(t.origin, '/agent/auth/claim/complete', { claim_token: b.claim_token, otp });
      assert.equal(done.status, 200);
      assert.deepEqual(done.body, { registration_id: b.registration_id, status: 'claimed' });

      const after = await getWith(t.origin, '/test/needs-inbox-write', b.api_key);
      assert.equal(after.status, 200);
      assert.deepEqual(after.body.scopes, POST_CLAIM_SCOPES);
      assert.equal(after.body.expiresAt, null, 'a claimed key no longer ends');
      // past the registration's 24 h the claimed key still works
      clock.advance(25 * 3600);
      assert.equal((await getWith(t.origin, '/test/needs-inbox-write', b.api_key)).status, 200);

      const again = await postJson(t.origin, '/agent/auth/claim/complete', { claim_token: b.claim_token, otp });
      assert.equal(again.status, 409);
      assert.equal(again.body.error, 'previously_claimed');
      const reclaim = await postJson(t.origin, '/agent/auth/claim', { claim_token: b.claim_token, email });
      assert.equal(reclaim.body.error, 'previously_claimed');
      // the used link's page says so instead of minting
      const used = await fetch(t.origin + new URL(link).pathname + new URL(link).search);
      assert.equal(used.status, 409);
    });

    for (const requested of ['api_key', 'access_token'] as const) {
      test(`verified email (${requested}): the claim email goes out at registration; the credential comes at completion`, async () => {
        const email = person();
        const reg = await postJson(t.origin, '/agent/auth', {
          type: 'identity_assertion',
          assertion_type: 'verified_email',
          assertion: email,
          requested_credential_type: requested,
        });
        assert.equal(reg.status, 200);
        assert.equal(reg.body.registration_type, 'email-verification');
        assert.equal(reg.body.credential_type, requested);
        assert.equal(reg.body.api_key, undefined);
        assert.equal(reg.body.credential, undefined);
        const link = await claimLinkFor(sink, email);
        // asking for the claim again with the same address is the same claim: no second email
        const same = await postJson(t.origin, '/agent/auth/claim', { claim_token: reg.body.claim_token, email });
        assert.equal(same.status, 200);
        await new Promise((r) => setTimeout(r, 100));
        assert.equal(sink.messages.filter((m) => m.to.includes(email)).length, 1);
        const other = await postJson(t.origin, '/agent/auth/claim', {
          claim_token: reg.body.claim_token,
          email: person(),
        });
        assert.equal(other.status, 409);
        assert.equal(other.body.error, 'claimed_or_in_flight');

        const otp = await pressForCode(t.origin, link);
        const done = await postJson(t.origin, '/agent/auth/claim/complete', { claim_token: reg.body.claim_token, otp });
        assert.equal(done.status, 200);
        assert.equal(done.headers.get('cache-control'), 'no-store');
        assert.equal(done.body.status, 'claimed');
        assert.equal(done.body.credential_type, requested);
        assert.deepEqual(done.body.scopes, POST_CLAIM_SCOPES);
        const credential = done.body.credential as string;
        assert.equal(done.body[requested], credential);
        assert.match(credential, requested === 'api_key' ? /^sk_live_/ : /^at_/);
        const use = await getWith(t.origin, '/test/needs-inbox-write', credential);
        assert.equal(use.status, 200);
        assert.deepEqual(use.body.scopes, POST_CLAIM_SCOPES);
        if (requested === 'access_token') {
          assert.equal(Date.parse(done.body.credential_expires) - clock.now(), 3600 * 1000);
          clock.advance(3601);
          const late = await getWith(t.origin, '/test/needs-inbox-read', credential);
          assert.equal(late.status, 401);
          assert.equal(late.body.error, 'invalid_token');
        } else {
          assert.equal(done.body.credential_expires, null);
        }
      });
    }

    test('another address is refused while a claim link runs, and accepted once it has expired', async () => {
      const reg = await postJson(t.origin, '/agent/auth', { type: 'anonymous', requested_credential_type: 'api_key' });
      const first = person();
      const a = await postJson(t.origin, '/agent/auth/claim', { claim_token: reg.body.claim_token, email: first });
      const b = await postJson(t.origin, '/agent/auth/claim', { claim_token: reg.body.claim_token, email: first });
      assert.deepEqual(b.body, a.body, 'same address: the same answer');
      const second = person();
      const refused = await postJson(t.origin, '/agent/auth/claim', {
        claim_token: reg.body.claim_token,
        email: second,
      });
      assert.equal(refused.body.error, 'claimed_or_in_flight');
      const oldLink = await claimLinkFor(sink, first);
      clock.advance(601);
      const moved = await postJson(t.origin, '/agent/auth/claim', { claim_token: reg.body.claim_token, email: second });
      assert.equal(moved.status, 200);
      assert.notEqual(moved.body.claim_attempt_id, a.body.claim_attempt_id);
      const newLink = await claimLinkFor(sink, second);
      // the first link is superseded, the new one works
      const stale = await fetch(t.origin + new URL(oldLink).pathname + new URL(oldLink).search);
      assert.equal(stale.status, 410);
      const otp = await pressForCode(t.origin, newLink);
      const done = await postJson(t.origin, '/agent/auth/claim/complete', { claim_token: reg.body.claim_token, otp });
      assert.equal(done.body.status, 'claimed');
    });

    test('five wrong codes kill the code — the right one included; a new press makes a new code', async () => {
      const reg = await postJson(t.origin, '/agent/auth', { type: 'anonymous', requested_credential_type: 'api_key' });
      const email = person();
      await postJson(t.origin, '/agent/auth/claim', { claim_token: reg.body.claim_token, email });
      const link = await claimLinkFor(sink, email);
      const otp = await pressForCode(t.origin, link);
      for (let i = 0; i < 5; i++) {
        const r = await postJson(t.origin, '/agent/auth/claim/complete', {
          claim_token: reg.body.claim_token,
          otp: wrongCode(otp),
        });
        assert.equal(r.status, 401);
        assert.equal(r.body.error, 'otp_invalid');
      }
      const dead = await postJson(t.origin, '/agent/auth/claim/complete', { claim_token: reg.body.claim_token, otp });
      assert.equal(dead.status, 410);
      assert.equal(dead.body.error, 'otp_expired');
      assert.equal((await getWith(t.origin, '/test/needs-inbox-write', reg.body.api_key)).status, 403);

      const fresh = await pressForCode(t.origin, link);
      const done = await postJson(t.origin, '/agent/auth/claim/complete', {
        claim_token: reg.body.claim_token,
        otp: fresh,
      });
      assert.equal(done.body.status, 'claimed');
    });

    test('a new press replaces the earlier code', async () => {
      const reg = await postJson(t.origin, '/agent/auth', { type: 'anonymous', requested_credential_type: 'api_key' });
      const email = person();
      await postJson(t.origin, '/agent/auth/claim', { claim_token: reg.body.claim_token, email });
      const link = await claimLinkFor(sink, email);
      const first = await pressForCode(t.origin, link);
      let second = await pressForCode(t.origin, link);
      while (second === first) second = await pressForCode(t.origin, link);
      const old = await postJson(t.origin, '/agent/auth/claim/complete', {
        claim_token: reg.body.claim_token,
        otp: first,
      });
      assert.equal(old.body.error, 'otp_invalid');
      const ok = await postJson(t.origin, '/agent/auth/claim/complete', {
        claim_token: reg.body.claim_token,
        otp: second,
      });
      assert.equal(ok.body.status, 'claimed');
    });

    test('lifetimes: code after 10 minutes, link after 10 minutes, claim token and unclaimed key after 24 hours', async () => {
      const reg = await postJson(t.origin, '/agent/auth', { type: 'anonymous', requested_credential_type: 'api_key' });
      const email = person();
      await postJson(t.origin, '/agent/auth/claim', { claim_token: reg.body.claim_token, email });
      const link = await claimLinkFor(sink, email);
      const otp = await pressForCode(t.origin, link);
      clock.advance(601);
      const late = await postJson(t.origin, '/agent/auth/claim/complete', { claim_token: reg.body.claim_token, otp });
      assert.equal(late.status, 410);
      assert.equal(late.body.error, 'otp_expired');
      const page = await fetch(t.origin + new URL(link).pathname + new URL(link).search);
      assert.equal(page.status, 410, 'the link has expired too');
      assert.equal((await getWith(t.origin, '/test/needs-inbox-read', reg.body.api_key)).status, 200);

      clock.advance(24 * 3600);
      const gone = await getWith(t.origin, '/test/needs-inbox-read', reg.body.api_key);
      assert.equal(gone.status, 401, 'an unclaimed key ends with its registration');
      const claim = await postJson(t.origin, '/agent/auth/claim', { claim_token: reg.body.claim_token, email });
      assert.equal(claim.status, 410);
      assert.equal(claim.body.error, 'claim_expired');
      const complete = await postJson(t.origin, '/agent/auth/claim/complete', {
        claim_token: reg.body.claim_token,
        otp,
      });
      assert.equal(complete.body.error, 'claim_expired');
    });

    test('the store holds digests only, and no secret reaches the log', async () => {
      const reg = await postJson(t.origin, '/agent/auth', { type: 'anonymous', requested_credential_type: 'api_key' });
      const email = person();
      await postJson(t.origin, '/agent/auth/claim', { claim_token: reg.body.claim_token, email });
      const link = await claimLinkFor(sink, email);
      const otp = await pressForCode(t.origin, link);
      await postJson(t.origin, '/agent/auth/claim/complete', { claim_token: reg.body.claim_token, otp });
      const linkToken = new URL(link).searchParams.get('token')!;
      const secrets = [reg.body.api_key, reg.body.claim_token, linkToken, email];
      const dump = JSON.stringify(
        await Promise.all(
          ['agent_registrations', 'agent_credentials', 'agent_claim_attempts'].map(
            async (table) => (await t.db.query(`select * from ${table}`)).rows,
          ),
        ),
      );
      const log = t.logs.join('');
      for (const s of secrets) {
        assert.ok(!dump.includes(s), 'not stored in clear');
        assert.ok(!log.includes(s), 'not logged');
      }
      assert.ok(!log.includes(linkToken.slice(4, 20)));
      assert.match(log, /"route":"\/agent\/auth\/claim\/view","status":200/, 'the link page request is logged');
    });
  });
}
