/**
 * The discovery documents, field by field, with BASE_URL and API_URL set to public names: every
 * URL they contain is built from those, every URL they name answers, the issuer is the
 * protected resource's authorization server, the linkset parses, the skills' digests are of
 * the bytes served. The documents with and without an MCP server: mcp-documents.test.ts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { startTestApp, type TestApp } from '../../test/helpers/app.ts';
import { AGENT_ERRORS } from '../agent/errors.ts';
import { TOKEN_REVOKED } from '../agent/events.ts';
import { POST_CLAIM_SCOPES, PRE_CLAIM_SCOPES, SCOPES } from '../agent/scopes.ts';
import { DEFAULT_AGENT_SETTINGS } from '../agent/settings.ts';
import { API_CATALOG_PROFILE } from './api-catalog.ts';
import { SKILLS_SCHEMA } from './documents.ts';
import { DISCOVERY_CACHE } from './routes.ts';

const BASE = 'https://optout.example';
const API = 'https://api.optout.example';
const DOCS = [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-authorization-server',
  '/.well-known/api-catalog',
  '/.well-known/openapi.json',
  '/.well-known/agent-skills/index.json',
  '/.well-known/ai.txt',
  '/auth.md',
  '/.well-known/mcp/server-card.json',
  '/.well-known/oauth-protected-resource/mcp',
];

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: { BASE_URL: BASE, API_URL: API }, runtime: { worker: false } });
});
after(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: url.replace(BASE, '').replace(API, ''), headers });
const json = async (url: string) => (await get(url)).json();
/** The URLs a text names, without examples that stand for many ("…/api/v1/…", "<slug>"). */
const urlsIn = (text: string) =>
  [...text.matchAll(/https?:\/\/[^\s"'<>`)\],]+/g)]
    .map((m) => m[0].replace(/[.]$/, ''))
    .filter((u) => !u.includes('…') && !u.includes('<'));

/** Every URL of ours in a document answers (paths with placeholders or POST-only ones excepted). */
async function assertAnswer(urls: string[]) {
  for (const u of new Set(urls)) {
    assert.ok(u.startsWith(BASE) || u.startsWith(API), `${u} is built from BASE_URL or API_URL`);
    const path = u.replace(BASE, '').replace(API, '').split('#')[0]!;
    const res = await t.app.inject({ method: 'GET', url: path || '/' });
    // 401: a protected endpoint (the event stream) that exists and wants a credential
    assert.ok([200, 401, 405].includes(res.statusCode), `${u} answers (${res.statusCode})`);
  }
}

describe('discovery documents: common HTTP behaviour', () => {
  for (const path of DOCS) {
    test(`${path}: GET and HEAD, CORS for every origin, a shared cache, an ETag that answers 304`, async () => {
      const g = await get(path);
      assert.equal(g.statusCode, 200);
      assert.equal(g.headers['access-control-allow-origin'], '*');
      assert.match(String(g.headers['cache-control']), /^public, max-age=\d+$/);
      const h = await t.app.inject({ method: 'HEAD', url: path });
      assert.equal(h.statusCode, 200);
      assert.equal(h.body, '');
      assert.equal(h.headers['content-type'], g.headers['content-type']);
      assert.equal(h.headers['access-control-allow-origin'], '*');
      if (path !== '/.well-known/openapi.json') {
        assert.equal(g.headers['cache-control'], DISCOVERY_CACHE);
        const etag = String(g.headers.etag);
        assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
        assert.equal(h.headers.etag, etag);
        const again = await get(path, { 'if-none-match': etag });
        assert.equal(again.statusCode, 304);
        assert.equal(again.body, '');
      }
      assert.ok(!g.body.includes('127.0.0.1'), 'no URL of the listening address leaks in');
    });
  }
});

describe('OAuth metadata', () => {
  test('protected resource (RFC 9728): resource, its authorization server, scopes, header-only bearer', async () => {
    const prm = await json('/.well-known/oauth-protected-resource');
    assert.deepEqual(Object.keys(prm).sort(), [
      'authorization_servers',
      'bearer_methods_supported',
      'resource',
      'resource_documentation',
      'resource_name',
      'scopes_supported',
    ]);
    assert.equal(prm.resource, BASE);
    assert.deepEqual(prm.authorization_servers, [BASE]);
    assert.deepEqual(prm.scopes_supported, [...SCOPES]);
    assert.deepEqual(prm.bearer_methods_supported, ['header']);
    assert.equal(prm.resource_documentation, `${BASE}/auth.md`);
    await assertAnswer([prm.resource_documentation]);
  });

  test('authorization server (RFC 8414): issuer equals the resource’s authorization server; agent_auth in full', async () => {
    const prm = await json('/.well-known/oauth-protected-resource');
    const as = await json('/.well-known/oauth-authorization-server');
    assert.equal(as.issuer, prm.authorization_servers[0]);
    assert.equal(as.issuer, BASE);
    assert.equal(as.service_documentation, `${BASE}/auth.md`);
    assert.deepEqual(as.scopes_supported, [...SCOPES]);
    assert.equal(as.revocation_endpoint, `${BASE}/agent/auth/revoke`);
    assert.deepEqual(as.revocation_endpoint_auth_methods_supported, ['none']);
    // no endpoint that does not exist is advertised
    for (const absent of ['authorization_endpoint', 'token_endpoint', 'response_types_supported', 'jwks_uri']) {
      assert.equal(as[absent], undefined, absent);
    }
    const a = as.agent_auth;
    assert.equal(a.skill, `${BASE}/auth.md`);
    assert.equal(a.register_uri, `${BASE}/auth.md`);
    assert.equal(a.claim_uri, `${BASE}/auth.md#claim`);
    assert.equal(a.anonymous.claim_uri, a.claim_uri);
    assert.equal(a.revocation_uri, as.revocation_endpoint);
    assert.deepEqual(a.identity_types_supported, ['anonymous', 'identity_assertion']);
    assert.deepEqual(a.anonymous.credential_types_supported, ['api_key']);
    assert.deepEqual(a.identity_assertion, {
      assertion_types_supported: ['verified_email'],
      credential_types_supported: ['api_key', 'access_token'],
    });
    assert.deepEqual(a.scopes, { pre_claim: [...PRE_CLAIM_SCOPES], post_claim: [...POST_CLAIM_SCOPES] });
    assert.deepEqual(a.endpoints, {
      register: `${BASE}/agent/auth`,
      claim: `${BASE}/agent/auth/claim`,
      claim_complete: `${BASE}/agent/auth/claim/complete`,
      revoke: `${BASE}/agent/auth/revoke`,
      events: `${BASE}/agent/auth/events`,
    });
    assert.equal(a.revocation_events.endpoint, a.endpoints.events);
    assert.deepEqual(a.revocation_events.event_types, [
      'https://schemas.openid.net/secevent/oauth/event-type/token-revoked',
    ]);
    // the anchors exist in auth.md
    const md = (await get('/auth.md')).body;
    assert.match(md, /<a id="claim"><\/a>/);
    assert.match(md, /<a id="register"><\/a>/);
    // every POST endpoint exists (GET is refused with 405, not 404)
    for (const url of Object.values(a.endpoints) as string[]) {
      const r = await t.app.inject({ method: 'PUT', url: url.replace(BASE, '') });
      assert.equal(r.statusCode, 405, url);
    }
    // the revocation endpoint takes the RFC 7009 form
    const r = await t.app.inject({
      method: 'POST',
      url: '/agent/auth/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'token=unknown',
    });
    assert.equal(r.statusCode, 200);
  });

  test('the MCP server’s documents: its card and the /mcp resource metadata, naming the scopes its tools need', async () => {
    const card = await json('/.well-known/mcp/server-card.json');
    assert.equal(card.remotes[0].url, `${BASE}/mcp`);
    assert.equal(card.name, 'example.optout/inbox');
    const prm = await json('/.well-known/oauth-protected-resource/mcp');
    assert.equal(prm.resource, `${BASE}/mcp`);
    assert.deepEqual(prm.authorization_servers, [BASE]);
    const needed = new Set(card.tools.flatMap((x: { scopes: string[] }) => x.scopes));
    assert.deepEqual(new Set(prm.scopes_supported), needed);
  });
});

describe('API catalog (RFC 9727)', () => {
  test('a linkset of our APIs, with its profile and its Link header on GET and HEAD', async () => {
    const g = await get('/.well-known/api-catalog');
    assert.equal(g.headers['content-type'], `application/linkset+json; profile="${API_CATALOG_PROFILE}"`);
    const self = `<${BASE}/.well-known/api-catalog>; rel="api-catalog"`;
    assert.equal(g.headers.link, self);
    assert.equal((await t.app.inject({ method: 'HEAD', url: '/.well-known/api-catalog' })).headers.link, self);

    // RFC 9264 §4.2: {"linkset": [context objects]}; each has an absolute "anchor" and arrays of
    // target objects with an "href" (and here a "type").
    const doc = g.json();
    assert.deepEqual(Object.keys(doc), ['linkset']);
    assert.ok(Array.isArray(doc.linkset));
    const targets: string[] = [];
    for (const ctx of doc.linkset) {
      assert.equal(typeof ctx.anchor, 'string');
      assert.ok(new URL(ctx.anchor).href);
      for (const [rel, links] of Object.entries(ctx)) {
        if (rel === 'anchor') continue;
        assert.ok(['service-desc', 'service-doc', 'service-meta', 'status'].includes(rel), rel);
        assert.ok(Array.isArray(links) && links.length > 0);
        for (const l of links as { href: string; type: string }[]) {
          assert.deepEqual(Object.keys(l).sort(), ['href', 'type']);
          targets.push(l.href);
        }
      }
    }
    assert.deepEqual(
      doc.linkset.map((c: { anchor: string }) => c.anchor),
      [`${API}/api/v1`, `${BASE}/agent/auth`, `${BASE}/mcp`],
    );
    await assertAnswer(targets);
  });
});

describe('OpenAPI', () => {
  test('the one generated document also describes agent registration, at BASE_URL, with the bearer scheme', async () => {
    const doc = await json('/.well-known/openapi.json');
    assert.deepEqual(doc.servers, [{ url: API }]);
    assert.deepEqual(doc.components.securitySchemes.bearer, {
      type: 'http',
      scheme: 'bearer',
      description: 'api_key or access_token from POST /agent/auth or /agent/auth/claim/complete',
    });
    for (const p of ['/agent/auth', '/agent/auth/claim', '/agent/auth/claim/complete', '/agent/auth/revoke']) {
      assert.deepEqual(doc.paths[p].post.servers, [{ url: BASE }], p);
    }
    assert.deepEqual(doc.paths['/agent/auth/events'].get.security, [{ bearer: [] }]);
    assert.deepEqual(Object.keys(doc.paths['/agent/auth/revoke'].post.requestBody.content).sort(), [
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
    assert.ok(!Object.keys(doc.paths).some((p) => p.includes('claim/view')), 'the person’s pages are not API');
  });
});

describe('agent skills index (v0.2.0)', () => {
  test('each skill: name, type, description as in its front matter, an absolute URL, the digest of the bytes served', async () => {
    const index = await json('/.well-known/agent-skills/index.json');
    assert.equal(index.$schema, SKILLS_SCHEMA);
    assert.deepEqual(
      index.skills.map((s: { name: string }) => s.name),
      ['agent-registration', 'cancellation-guides', 'mcp-tools'],
    );
    for (const s of index.skills) {
      assert.deepEqual(Object.keys(s).sort(), ['description', 'digest', 'name', 'type', 'url']);
      assert.match(s.name, /^[a-z0-9]+(-[a-z0-9]+)*$/);
      assert.ok(s.name.length <= 64);
      assert.equal(s.type, 'skill-md');
      assert.ok(s.description.length > 0 && s.description.length <= 1024);
      assert.equal(s.url, `${BASE}/.well-known/agent-skills/${s.name}/SKILL.md`);
      const res = await get(s.url);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'text/markdown; charset=utf-8');
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.equal(s.digest, `sha256:${createHash('sha256').update(res.rawPayload).digest('hex')}`);
      const front = parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(res.body)![1]!);
      assert.deepEqual(front, { name: s.name, description: s.description });
      assert.ok(!/\{[a-z_]+\}/.test(res.body), 'no placeholder left');
      await assertAnswer(urlsIn(res.body));
    }
  });
});

describe('ai.txt and auth.md', () => {
  test('ai.txt parses as robots.txt groups and points at documents that answer', async () => {
    const r = await get('/.well-known/ai.txt');
    assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    // RFC 9309 §2.2: lines are "field: value" or comments; a group starts with user-agent
    const rules = r.body
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => {
        const m = /^([A-Za-z-]+):\s*(.*)$/.exec(l);
        assert.ok(m, `a robots line: ${l}`);
        return [m[1]!.toLowerCase(), m[2]!];
      });
    assert.deepEqual(rules, [
      ['user-agent', '*'],
      ['allow', '/'],
      ['disallow', '/agent/auth/claim/view'],
      ['disallow', '/connect'],
    ]);
    await assertAnswer(urlsIn(r.body));
    assert.ok(r.body.includes(`${BASE}/.well-known/mcp/server-card.json`), 'the MCP server card is named');
  });

  test('auth.md: for agents, absolute URLs that answer, every error code, the lifetimes enforced', async () => {
    const r = await get('/auth.md');
    assert.equal(r.headers['content-type'], 'text/markdown; charset=utf-8');
    const md = r.body;
    assert.ok(md.startsWith('# auth.md\n'));
    assert.match(md, /agentic registration/);
    assert.ok(!/\{[a-z_]+\}/.test(md), 'no placeholder left');
    for (const [code, status] of Object.entries(AGENT_ERRORS)) {
      assert.match(md, new RegExp(`\\| \`${code}\` +\\| ${status} +\\|`), code);
    }
    const l = DEFAULT_AGENT_SETTINGS.lifetimes;
    assert.ok(md.includes(`ends ${l.registrationSeconds / 3600} hours after registration`));
    assert.ok(
      md.includes(
        `A code lasts ${l.otpSeconds / 60} minutes. After ${DEFAULT_AGENT_SETTINGS.maxOtpFailures} wrong codes`,
      ),
    );
    assert.ok(md.includes(`The link works for ${l.claimLinkSeconds / 60} minutes`));
    assert.ok(md.includes(`An \`access_token\` lasts ${l.accessTokenSeconds / 60} minutes`));
    assert.ok(!/sk_live_[A-Za-z0-9_-]{20,}/.test(md), 'no secret-shaped example');
    // the one foreign URL is the event type's identifier, a name rather than a link
    await assertAnswer(urlsIn(md).filter((u) => u !== TOKEN_REVOKED));
  });
});
