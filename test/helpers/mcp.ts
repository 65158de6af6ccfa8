/**
 * An agent at the MCP endpoint, as agents really get there: it registers over HTTP (and, for
 * post-claim scopes, a person claims the registration through the emailed link), then talks to
 * /mcp with the official MCP client (@modelcontextprotocol/client) over a real socket.
 */
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type AgentApp, claimLinkFor, postJson, pressForCode } from './agent.ts';
import type { SmtpSink } from './smtp-sink.ts';

export interface Registered {
  api_key: string;
  claim_token: string;
}

export async function registerAgent(origin: string): Promise<Registered> {
  const r = await postJson(origin, '/agent/auth', { type: 'anonymous', requested_credential_type: 'api_key' });
  assert.equal(r.status, 200);
  return { api_key: r.body.api_key, claim_token: r.body.claim_token };
}

/** The whole claim: the agent asks, the person opens the email's link and reads the code out. */
export async function claimAgent(t: AgentApp, sink: SmtpSink, reg: Registered, email: string): Promise<void> {
  const asked = await postJson(t.origin, '/agent/auth/claim', { claim_token: reg.claim_token, email });
  assert.equal(asked.status, 200);
  const otp = await pressForCode(t.origin, await claimLinkFor(sink, email));
  const done = await postJson(t.origin, '/agent/auth/claim/complete', { claim_token: reg.claim_token, otp });
  assert.equal(done.status, 200);
}

export type Era = 'modern' | 'legacy';

/** A connected client; `era` picks the 2026-07-28 handshake (server/discover) or the 2025 one. */
export async function mcpClient(origin: string, credential: string | undefined, era: Era = 'modern') {
  const client = new Client(
    { name: 'optout-test-agent', version: '0.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
    requestInit: { headers: credential ? { authorization: `Bearer ${credential}` } : {} },
  });
  await client.connect(transport);
  return client;
}

/** The structured error of an isError result. */
// biome-ignore lint/suspicious/noExplicitAny: tool results are checked field by field
export function toolError(r: any): { code: string; message: string; [k: string]: unknown } {
  assert.equal(r.isError, true, `expected an error result, got ${JSON.stringify(r).slice(0, 300)}`);
  assert.match(r.content[0].text, new RegExp(`^${r.structuredContent.error.code}: `));
  return r.structuredContent.error;
}
