/**
 * The discovery documents as the MCP server shapes them: none mentions /mcp when no MCP server
 * is registered; with one, the server card, its protected-resource metadata, the API catalog,
 * the skills index and ai.txt all name the same endpoint and the registry's tools.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { DEFAULT_AGENT_SETTINGS } from '../agent/settings.ts';
import type { McpServerEntry } from './mcp-registry.ts';
import { discoveryRoutes } from './routes.ts';

const BASE = 'https://optout.example';
const API = 'https://api.optout.example';

describe('without an MCP server', () => {
  test('no document mentions /mcp: no card, no /mcp metadata, no MCP skill, no catalog anchor', async () => {
    const app = Fastify();
    await discoveryRoutes(app, { config: { baseUrl: BASE, apiUrl: API }, settings: DEFAULT_AGENT_SETTINGS, mcp: null });
    await app.ready();
    try {
      for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/mcp/server-card.json']) {
        assert.equal((await app.inject({ method: 'GET', url: path })).statusCode, 404, path);
      }
      for (const path of ['/.well-known/ai.txt', '/.well-known/api-catalog', '/.well-known/agent-skills/index.json']) {
        assert.ok(!/mcp/i.test((await app.inject({ method: 'GET', url: path })).body), path);
      }
    } finally {
      await app.close();
    }
  });
});

describe('with a sample MCP server in the registry', () => {
  const mcp: McpServerEntry = {
    path: '/mcp',
    name: 'example.optout/optout',
    version: '1.0.0',
    title: 'optout',
    description: 'Inbox cleanup and cancellation guidance.',
    protocolVersions: ['2025-11-25', '2025-06-18'],
    tools: [
      {
        name: 'search_services',
        title: 'Search services',
        description: 'Find catalog services by name.',
        scopes: ['catalog.read'],
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      {
        name: 'batch_unsubscribe',
        title: 'Batch unsubscribe',
        description: 'Unsubscribe from senders.',
        scopes: ['inbox.read', 'inbox.write'],
        annotations: { destructiveHint: true, openWorldHint: true },
      },
    ],
  };
  let app: FastifyInstance;
  before(async () => {
    app = Fastify();
    await discoveryRoutes(app, { config: { baseUrl: BASE, apiUrl: API }, settings: DEFAULT_AGENT_SETTINGS, mcp });
    await app.ready();
  });
  after(() => app.close());
  const fetchJson = async (path: string) => (await app.inject({ method: 'GET', url: path })).json();

  test('every document names the same endpoint and the registry’s tools', async () => {
    const card = await fetchJson('/.well-known/mcp/server-card.json');
    assert.equal(card.name, mcp.name);
    assert.match(card.name, /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    assert.ok(card.description.length <= 100);
    assert.equal(card.remotes[0].url, `${BASE}/mcp`);
    assert.equal(card.transport.endpoint, `${BASE}/mcp`);
    assert.deepEqual(card.remotes[0].supportedProtocolVersions, mcp.protocolVersions);
    assert.equal(card.protocolVersion, '2025-11-25');
    assert.deepEqual(
      card.tools.map((x: { name: string }) => x.name),
      mcp.tools.map((x) => x.name),
    );
    assert.equal(card.authentication.resource_metadata, `${BASE}/.well-known/oauth-protected-resource/mcp`);

    const prm = await fetchJson('/.well-known/oauth-protected-resource/mcp');
    assert.equal(prm.resource, `${BASE}/mcp`);
    assert.deepEqual(prm.authorization_servers, [BASE]);
    assert.deepEqual(prm.scopes_supported, ['catalog.read', 'inbox.read', 'inbox.write']);

    const catalog = await fetchJson('/.well-known/api-catalog');
    const ctx = catalog.linkset.find((c: { anchor: string }) => c.anchor === `${BASE}/mcp`);
    assert.equal(ctx['service-desc'][0].href, `${BASE}/.well-known/mcp/server-card.json`);

    const index = await fetchJson('/.well-known/agent-skills/index.json');
    const skill = index.skills.find((s: { name: string }) => s.name === 'mcp-tools');
    const served = await app.inject({ method: 'GET', url: '/.well-known/agent-skills/mcp-tools/SKILL.md' });
    assert.equal(skill.digest, `sha256:${createHash('sha256').update(served.rawPayload).digest('hex')}`);
    for (const tool of mcp.tools) assert.ok(served.body.includes(`\`${tool.name}\``));

    const ai = (await app.inject({ method: 'GET', url: '/.well-known/ai.txt' })).body;
    assert.ok(ai.includes(`${BASE}/.well-known/mcp/server-card.json`));
  });
});
