/**
 * The MCP endpoint through the official MCP client over real HTTP: what tools/list says (and
 * that the discovery documents say exactly the same), every catalog tool, scopes, tool errors,
 * both protocol eras, and the Bearer gate (no key, a bad key, a revoked key).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { type AgentApp, postJson, startAgentApp, UNLIMITED } from '../../test/helpers/agent.ts';
import { mcpClient, registerAgent, toolError } from '../../test/helpers/mcp.ts';
import { MCP_ERRORS } from './errors.ts';

// biome-ignore lint/suspicious/noExplicitAny: documents are checked field by field
const getJson = async (url: string): Promise<any> => (await fetch(url)).json();

let t: AgentApp;
let key: string;
let client: Client;

before(async () => {
  t = await startAgentApp('PGlite', { agent: { limits: UNLIMITED } });
  key = (await registerAgent(t.origin)).api_key;
  client = await mcpClient(t.origin, key);
});
after(async () => {
  await client.close();
  await t.close();
});

describe('the MCP endpoint', () => {
  test('tools/list names exactly the tools of the server card and the mcp-tools skill, with schemas and annotations', async () => {
    const { tools } = await client.listTools();
    const card = await getJson(`${t.origin}/.well-known/mcp/server-card.json`);
    assert.deepEqual(
      tools.map((x) => x.name),
      card.tools.map((x: { name: string }) => x.name),
    );
    for (const tool of tools) {
      const carded = card.tools.find((x: { name: string }) => x.name === tool.name);
      assert.equal(tool.description, carded.description);
      assert.equal(tool.title, carded.title);
      assert.deepEqual(tool.annotations, carded.annotations);
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(tool.outputSchema?.type, 'object');
    }
    const index = await getJson(`${t.origin}/.well-known/agent-skills/index.json`);
    const skill = index.skills.find((s: { name: string }) => s.name === 'mcp-tools');
    const md = await (await fetch(skill.url.replace(t.config.baseUrl, t.origin))).text();
    const named = [...md.matchAll(/^- `([a-z_]+)`/gm)].map((m) => m[1]);
    assert.deepEqual(
      named,
      tools.map((x) => x.name),
    );
    assert.equal(card.serverInfo.name, client.getServerVersion()?.name);
    assert.equal(card.serverInfo.version, client.getServerVersion()?.version);
  });

  test('search_services finds a service by name and pages a category', async () => {
    const r = await client.callTool({ name: 'search_services', arguments: { query: 'netflix' } });
    assert.equal(r.isError, undefined);
    const found = r.structuredContent as { items: { slug: string }[]; total: number; page: number; page_size: number };
    assert.equal(found.items[0]!.slug, 'netflix');
    assert.equal(found.page, 1);
    assert.equal(found.page_size, 10);
    assert.deepEqual(JSON.parse((r.content as { text: string }[])[0]!.text), found);
    const paged = await client.callTool({
      name: 'search_services',
      arguments: { category: 'streaming-video', page: 2, page_size: 2 },
    });
    const p = paged.structuredContent as { items: { slug: string }[]; total: number };
    assert.equal(p.items.length, 2);
    assert.ok(p.total > 4);
  });

  test('get_service, get_guide and analyze_friction answer with the public API’s shapes', async () => {
    const svc = (await client.callTool({ name: 'get_service', arguments: { slug: 'Netflix' } })).structuredContent as {
      slug: string;
      friction: { tier: string };
    };
    assert.equal(svc.slug, 'netflix');
    const api = await getJson(`${t.origin}/api/v1/services/netflix`);
    assert.deepEqual(svc, api.data);

    const guide = await client.callTool({
      name: 'get_guide',
      arguments: { slug: 'netflix', tone: 'terse', locale: 'de-DE' },
    });
    const g = guide.structuredContent as { tone: string; locale: string; steps: unknown[] };
    assert.equal(g.tone, 'terse');
    assert.equal(g.locale, 'de');
    assert.ok(g.steps.length > 0);

    const a = (await client.callTool({ name: 'analyze_friction', arguments: { slug: 'netflix' } }))
      .structuredContent as { tier: string; why: unknown[] };
    assert.equal(a.tier, svc.friction.tier);
    assert.equal(a.why.length, 6);
  });

  test('an unknown slug is a not_found tool error; arguments outside the schema are refused before the tool runs', async () => {
    assert.equal(
      toolError(await client.callTool({ name: 'get_service', arguments: { slug: 'no-such' } })).code,
      'not_found',
    );
    const bad = await client.callTool({ name: 'get_guide', arguments: { slug: 'netflix', tone: 'angry' } });
    assert.equal(bad.isError, true);
    const extra = await client.callTool({ name: 'analyze_friction', arguments: { slug: 'netflix', x: 1 } });
    assert.equal(extra.isError, true);
  });

  test('a 2025-era client (initialize handshake) gets the same tools', async () => {
    const legacy = await mcpClient(t.origin, key, 'legacy');
    try {
      assert.equal(legacy.getProtocolEra(), 'legacy');
      assert.equal(client.getProtocolEra(), 'modern');
      const a = await legacy.listTools();
      const b = await client.listTools();
      assert.deepEqual(
        a.tools.map((x) => x.name),
        b.tools.map((x) => x.name),
      );
      const r = await legacy.callTool({ name: 'get_service', arguments: { slug: 'netflix' } });
      assert.equal((r.structuredContent as { slug: string }).slug, 'netflix');
    } finally {
      await legacy.close();
    }
  });
});

describe('the Bearer gate of /mcp', () => {
  const list = (headers: Record<string, string>) =>
    fetch(`${t.origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });

  test('no credential: 401 with the /mcp resource metadata in the challenge, and the client refuses to connect', async () => {
    const r = await list({});
    assert.equal(r.status, 401);
    assert.equal(
      r.headers.get('www-authenticate'),
      `Bearer resource_metadata="${t.config.baseUrl}/.well-known/oauth-protected-resource/mcp"`,
    );
    assert.equal(((await r.json()) as { error: string }).error, 'invalid_token');
    await assert.rejects(mcpClient(t.origin, undefined));
  });

  test('a revoked key: 401 invalid_token at the next call of a connected client', async () => {
    const reg = await registerAgent(t.origin);
    const c = await mcpClient(t.origin, reg.api_key);
    assert.ok((await c.listTools()).tools.length > 0);
    assert.equal((await postJson(t.origin, '/agent/auth/revoke', { api_key: reg.api_key })).status, 200);
    await assert.rejects(c.listTools(), (err: { code?: unknown; status?: unknown }) => {
      assert.match(String((err as Error).message), /401|Unauthorized|invalid_token/i);
      return true;
    });
    const raw = await list({ authorization: `Bearer ${reg.api_key}` });
    assert.equal(raw.status, 401);
    assert.match(String(raw.headers.get('www-authenticate')), /error="invalid_token"/);
    await c.close();
  });

  test('a browser page of another origin is refused', async () => {
    const r = await list({ authorization: `Bearer ${key}`, origin: 'https://evil.example' });
    assert.equal(r.status, 403);
  });

  test('malformed JSON-RPC gets a JSON-RPC error, not a crash', async () => {
    const r = await fetch(`${t.origin}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${key}`,
      },
      body: '{"jsonrpc":',
    });
    assert.ok(r.status >= 400 && r.status < 500, String(r.status));
    const body = (await r.json()) as { error: { code: number } };
    assert.equal(body.error.code, -32700);
  });
});

describe('what the endpoint says about itself', () => {
  test('docs/agents.md lists every tool and every tool error code, and no other', async () => {
    const md = await readFile(new URL('../../docs/agents.md', import.meta.url), 'utf8');
    const section = md.slice(md.indexOf('## MCP tools'), md.indexOf('\n## ', md.indexOf('## MCP tools') + 5));
    const rows = (first: string) =>
      [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!).filter((c) => first.includes(c));
    const { tools } = await client.listTools();
    const names = tools.map((x) => x.name);
    assert.deepEqual(rows(names.join(' ')), names);
    const codes = Object.keys(MCP_ERRORS);
    assert.deepEqual(
      [...section.matchAll(/^\| `([a-z_]+)` \| [^|]+\|$/gm)].map((m) => m[1]),
      codes,
    );
  });

  test('tool arguments never reach the log', async () => {
    const marker = 'zz-sentinel-query-7f3a';
    await client.callTool({ name: 'search_services', arguments: { query: marker } });
    await client.callTool({ name: 'get_service', arguments: { slug: marker } });
    assert.ok(t.logs.length > 0);
    assert.ok(!t.logs.some((l) => l.includes(marker)));
  });
});
