/**
 * /mcp against bad and hostile input: bodies that are not JSON-RPC, too large, of another media
 * type, batches, unknown tools and methods, arguments outside every bound, and strings built to
 * reach a private address. Each is refused with a clear code, and the endpoint keeps serving.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { type AgentApp, startAgentApp, UNLIMITED } from '../../test/helpers/agent.ts';
import { mcpClient, registerAgent } from '../../test/helpers/mcp.ts';

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

const raw = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${t.origin}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${key}`,
      ...headers,
    },
    body,
  });

describe('/mcp under bad input', () => {
  test('not JSON, not JSON-RPC, another media type, a batch: JSON-RPC errors or 4xx, never a 5xx', async () => {
    for (const [body, headers] of [
      ['not json at all', {}],
      ['{"jsonrpc":"1.0","id":1,"method":"tools/list"}', {}],
      ['{"jsonrpc":"2.0","id":1}', {}],
      ['[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]', {}],
      ['{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { 'content-type': 'text/plain' }],
      ['{"jsonrpc":"2.0","id":1,"method":"no/such/method"}', {}],
    ] as const) {
      const r = await raw(body, headers);
      const text = await r.text();
      assert.ok(r.status < 500, `${r.status} for ${body}: ${text.slice(0, 200)}`);
      if (r.status === 200) assert.match(text, /"error"/, body);
    }
  });

  test('a body over 512 KiB is refused with 413 before anything runs', async () => {
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search_services', arguments: { query: 'x'.repeat(600 * 1024) } },
    });
    assert.equal((await raw(huge)).status, 413);
  });

  test('arguments past their bounds and hosts that are not hosts are tool errors, and nothing is opened', async () => {
    const before = t.runtime.handoffs.size;
    for (const [name, args] of [
      ['no_such_tool', {}],
      ['search_services', { query: 'x'.repeat(101) }],
      ['search_services', { page_size: 10_000 }],
      ['get_service', { slug: '' }],
      ['get_guide', { slug: 'netflix', locale: 'not a locale!' }],
      [
        'scan_inbox',
        { email: 'a@b.example', provider: 'custom', imap: { host: '127.0.0.1; rm -rf /', port: 993, tls: 'implicit' } },
      ],
      [
        'scan_inbox',
        { email: 'a@b.example', provider: 'custom', imap: { host: 'h.example', port: 70000, tls: 'implicit' } },
      ],
      ['scan_inbox', { email: 'a@b.example', provider: 'gmail', password: 'secret' }],
      ['scan_inbox', { scan_id: 'x'.repeat(101) }],
      ['batch_unsubscribe', { scan_id: 'scn_x', subscriptions: Array.from({ length: 2001 }, (_, i) => String(i)) }],
      ['batch_unsubscribe', { scan_id: 'scn_x', subscriptions: [] }],
    ] as const) {
      const r = await client.callTool({ name, arguments: args }).catch((err: Error) => ({ thrown: err.message }));
      assert.ok('thrown' in r || r.isError === true, `${name} ${JSON.stringify(args).slice(0, 80)}`);
    }
    assert.equal(t.runtime.handoffs.size, before, 'no hand-off was opened');
  });

  test('after all that, the endpoint still answers', async () => {
    const r = await client.callTool({ name: 'get_service', arguments: { slug: 'netflix' } });
    assert.equal((r.structuredContent as { slug: string }).slug, 'netflix');
  });
});
