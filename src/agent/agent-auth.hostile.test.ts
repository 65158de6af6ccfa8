/**
 * Hostile input to agent registration: guessing codes, guessing credentials, malformed and
 * oversized bodies, wrong content types, headers crafted to confuse the Bearer parser. Every
 * refusal is a stable code (or page status) and nothing is granted or lost.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
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
  UNLIMITED,
} from '../../test/helpers/agent.ts';
import { type SmtpSink, startSmtpSink } from '../../test/helpers/smtp-sink.ts';
import { trustTestCa } from '../../test/helpers/tls-ca.ts';

let sink: SmtpSink;
let t: AgentApp;
before(async () => {
  trustTestCa();
  sink = await startSmtpSink({ user: SINK_USER, password: SINK_PASSWORD, tls: 'starttls' });
  t = await startAgentApp('PGlite', { sink, agent: { limits: UNLIMITED }, setup: protectedTestRoutes });
});
after(async () => {
  await t.close();
  await sink.close();
});

const anonymous = () => postJson(t.origin, '/agent/auth', { type: 'anonymous', requested_credential_type: 'api_key' });
const raw = (path: string, body: string | Buffer, contentType: string | undefined, method = 'POST') =>
  fetch(t.origin + path, { method, headers: contentType ? { 'content-type': contentType } : {}, body });

async function claimedCode(email: string) {
  const reg = (await anonymous()).body;
  await postJson(t.origin, '/agent/auth/claim', { claim_token: reg.claim_token, email });
  const link = await claimLinkFor(sink, email);
  return { reg, link, otp: await pressForCode(t.origin, link) };
}

describe('guessing the code', () => {
  test('a brute force stops after five wrong codes: the rest of the space is never tried', async () => {
    const { reg, otp } = await claimedCode('brute@example.test');
    const results: string[] = [];
    for (let guess = 0; guess < 40; guess++) {
      const code = String(guess).padStart(6, '0');
      if (code === otp) continue;
      const r = await postJson(t.origin, '/agent/auth/claim/complete', { claim_token: reg.claim_token, otp: code });
      results.push(r.body.error);
    }
    assert.deepEqual(results.slice(0, 5), Array(5).fill('otp_invalid'));
    assert.ok(results.slice(5).every((e) => e === 'otp_expired'));
    const right = await postJson(t.origin, '/agent/auth/claim/complete', { claim_token: reg.claim_token, otp });
    assert.equal(right.body.error, 'otp_expired');
    assert.equal((await getWith(t.origin, '/test/needs-inbox-write', reg.api_key)).status, 403);
  });

  test('opening the link (or a preview bot fetching it) mints nothing', async () => {
    const reg = (await anonymous()).body;
    await postJson(t.origin, '/agent/auth/claim', { claim_token: reg.claim_token, email: 'preview@example.test' });
    const link = new URL(await claimLinkFor(sink, 'preview@example.test'));
    for (const method of ['GET', 'HEAD', 'GET']) {
      const r = await fetch(t.origin + link.pathname + link.search, { method });
      assert.equal(r.status, 200);
    }
    const r = await postJson(t.origin, '/agent/auth/claim/complete', { claim_token: reg.claim_token, otp: '000000' });
    assert.equal(r.body.error, 'otp_not_generated');
  });

  test('a code is bound to its registration: another registration’s code does not claim', async () => {
    const a = await claimedCode('a-bound@example.test');
    const b = (await anonymous()).body;
    await postJson(t.origin, '/agent/auth/claim', { claim_token: b.claim_token, email: 'b-bound@example.test' });
    await pressForCode(t.origin, await claimLinkFor(sink, 'b-bound@example.test'));
    const r = await postJson(t.origin, '/agent/auth/claim/complete', { claim_token: b.claim_token, otp: a.otp });
    assert.equal(r.body.error, 'otp_invalid');
  });
});

describe('guessing credentials and tokens', () => {
  test('random, truncated and foreign-prefixed credentials are refused with 401 invalid_token', async () => {
    const real = (await anonymous()).body.api_key as string;
    for (const c of [
      `sk_live_${randomBytes(32).toString('base64url')}`,
      `at_${randomBytes(32).toString('base64url')}`,
      real.slice(0, -1),
      `${real}A`,
      real.toUpperCase(),
      (await anonymous()).body.claim_token,
      `clm_${randomBytes(32).toString('base64url')}`,
      'x',
    ]) {
      const r = await getWith(t.origin, '/test/needs-inbox-read', c);
      assert.equal(r.status, 401, c);
      assert.equal(r.body.error, 'invalid_token');
    }
  });

  test('the credential is taken from the Authorization header only, in the Bearer scheme', async () => {
    const key = (await anonymous()).body.api_key as string;
    const tries: [string, Record<string, string>][] = [
      [`/test/needs-inbox-read?access_token=${key}`, {}],
      ['/test/needs-inbox-read', { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` }],
      ['/test/needs-inbox-read', { authorization: key }],
      ['/test/needs-inbox-read', { authorization: `Bearer ${key} extra` }],
      ['/test/needs-inbox-read', { authorization: `Bearer  ${key}x` }],
      ['/test/needs-inbox-read', { authorization: `Bearer "${key}"` }],
      ['/test/needs-inbox-read', { cookie: `api_key=${key}` }],
      ['/test/needs-inbox-read', { authorization: `Bearer ${'A'.repeat(8000)}` }],
    ];
    for (const [path, headers] of tries) {
      const r = await fetch(t.origin + path, { headers });
      assert.equal(r.status, 401, JSON.stringify(headers).slice(0, 60));
      assert.match(r.headers.get('www-authenticate')!, /^Bearer /);
    }
    // the scheme name is case-insensitive (RFC 9110 §11.1)
    const ok = await fetch(`${t.origin}/test/needs-inbox-read`, { headers: { authorization: `bearer ${key}` } });
    assert.equal(ok.status, 200);
  });

  test('unknown claim tokens and link tokens are refused, and nothing of them is reflected', async () => {
    const r = await postJson(t.origin, '/agent/auth/claim', {
      claim_token: `clm_${randomBytes(32).toString('base64url')}`,
      email: 'nobody@example.test',
    });
    assert.equal(r.status, 401);
    assert.equal(r.body.error, 'invalid_claim_token');
    for (const token of [`cvt_${randomBytes(32).toString('base64url')}`, '<script>alert(1)</script>', "' or 1=1 --"]) {
      const page = await fetch(`${t.origin}/agent/auth/claim/view?token=${encodeURIComponent(token)}`);
      assert.equal(page.status, 404);
      const html = await page.text();
      assert.ok(!html.includes('<script>alert'), 'nothing reflected');
      const press = await raw(
        '/agent/auth/claim/view',
        new URLSearchParams({ token }).toString(),
        'application/x-www-form-urlencoded',
      );
      assert.equal(press.status, 404);
    }
  });
});

describe('malformed requests', () => {
  test('bodies that are not the shape are refused with invalid_request and create nothing', async () => {
    const before = (await t.db.query<{ n: number }>('select count(*)::int as n from agent_registrations')).rows[0]!.n;
    const bodies: unknown[] = [
      {},
      [],
      null,
      'anonymous',
      { type: 'anonymous' },
      { type: 'anonymous', requested_credential_type: 'password' },
      { type: 'anonymous', requested_credential_type: 'api_key', extra: 1 },
      { type: 'identity_assertion', assertion_type: 'verified_email', assertion: 'not-an-email' },
      { type: 'identity_assertion', assertion_type: 'verified_email', assertion: `${'a'.repeat(250)}@example.test` },
      { type: 'identity_assertion', assertion_type: 'phone', assertion: '+15550100' },
      {
        type: 'identity_assertion',
        assertion_type: 'verified_email',
        assertion: 'x@example.test\r\nBcc: y@example.test',
      },
      JSON.parse('{"__proto__": {"admin": true}, "type": "anonymous", "requested_credential_type": "api_key"}'),
    ];
    for (const b of bodies) {
      const r = await postJson(t.origin, '/agent/auth', b);
      assert.equal(r.status, 400, JSON.stringify(b));
      assert.equal(r.body.error, 'invalid_request');
    }
    const after = (await t.db.query<{ n: number }>('select count(*)::int as n from agent_registrations')).rows[0]!.n;
    assert.equal(after, before);
  });

  test('an anonymous registration cannot ask for an access_token', async () => {
    const r = await postJson(t.origin, '/agent/auth', { type: 'anonymous', requested_credential_type: 'access_token' });
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'unsupported_credential_type');
  });

  test('codes that are not six digits are refused before they count as tries', async () => {
    const { reg, otp } = await claimedCode('shape@example.test');
    for (const bad of ['12345', '1234567', '12345a', ' 123456', '１２３４５６', 123456, null]) {
      const r = await postJson(t.origin, '/agent/auth/claim/complete', { claim_token: reg.claim_token, otp: bad });
      assert.equal(r.status, 400);
      assert.equal(r.body.error, 'invalid_request');
    }
    const ok = await postJson(t.origin, '/agent/auth/claim/complete', { claim_token: reg.claim_token, otp });
    assert.equal(ok.body.status, 'claimed');
  });

  test('broken JSON, other content types and oversized bodies get their codes', async () => {
    const cases: [string, string | Buffer, string | undefined, number, string][] = [
      ['/agent/auth', '{"type": "anonymous",', 'application/json', 400, 'invalid_request'],
      [
        '/agent/auth',
        'type=anonymous&requested_credential_type=api_key',
        'application/x-www-form-urlencoded',
        415,
        'unsupported_media_type',
      ],
      [
        '/agent/auth/claim/complete',
        'claim_token=x&otp=123456',
        'application/x-www-form-urlencoded',
        415,
        'unsupported_media_type',
      ],
      ['/agent/auth', 'anonymous', 'text/plain', 415, 'unsupported_media_type'],
      [
        '/agent/auth',
        JSON.stringify({ type: 'anonymous', requested_credential_type: 'api_key', pad: 'x'.repeat(5000) }),
        'application/json',
        413,
        'payload_too_large',
      ],
      ['/agent/auth/revoke', 'token=a&token=b', 'application/x-www-form-urlencoded', 400, 'invalid_request'],
      [
        '/agent/auth/revoke',
        `token=${'x'.repeat(5000)}`,
        'application/x-www-form-urlencoded',
        413,
        'payload_too_large',
      ],
      ['/agent/auth/revoke', '{"api_key": "a", "claim_token": "b"}', 'application/json', 400, 'invalid_request'],
    ];
    for (const [path, body, type, status, code] of cases) {
      const r = await raw(path, body, type);
      assert.equal(r.status, status, `${path} ${type}`);
      assert.equal(((await r.json()) as { error: string }).error, code);
    }
  });

  test('unknown paths and methods under /agent/auth answer in the agent protocol', async () => {
    const nf = await fetch(`${t.origin}/agent/auth/nothing`);
    assert.equal(nf.status, 404);
    assert.equal(((await nf.json()) as { error: string }).error, 'not_found');
    const m = await fetch(`${t.origin}/agent/auth`, { method: 'GET' });
    assert.equal(m.status, 405);
    assert.equal(((await m.json()) as { error: string }).error, 'method_not_allowed');
    assert.match(m.headers.get('allow')!, /POST/);
  });
});
