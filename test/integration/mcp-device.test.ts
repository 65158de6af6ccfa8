/**
 * scan_inbox for an Outlook / Microsoft 365 mailbox: the agent gets the device-code pair from
 * the identity provider (oidc-provider on loopback, configured through OAUTH_*), the person
 * approves it with an HTTP client on "another device", and the scan runs over XOAUTH2 against a
 * private Dovecot whose oauth2 passdb asks that provider about each token. Then what the agent
 * sees when the person refuses, signs in as someone else, or never comes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { listMessages } from '../fixtures/list-mail.ts';
import { UNLIMITED } from '../helpers/agent.ts';
import { approveDevice } from '../helpers/http-browser.ts';
import { mcpClient, registerAgent, toolError } from '../helpers/mcp.ts';
import { type OAuthStack, startOAuthStack } from '../helpers/oauth-stack.ts';
import { waitFor } from '../helpers/wait-for.ts';

const ALICE = 'alice@example.test';

// biome-ignore lint/suspicious/noExplicitAny: tool results are checked field by field
type State = any;
const call = async (c: Client, args: Record<string, unknown>): Promise<State> => {
  const r = await c.callTool({ name: 'scan_inbox', arguments: args });
  assert.equal(r.isError, undefined, JSON.stringify(r.content));
  return r.structuredContent;
};
const settled = (c: Client, scanId: string) =>
  waitFor(async () => {
    const s = await call(c, { scan_id: scanId });
    return s.status === 'done' || s.status === 'failed' ? s : undefined;
  }, 30_000);

describe('scan_inbox with provider outlook: the device-code sign-in', () => {
  let stack: OAuthStack;
  let agent: Client;
  before(async () => {
    stack = await startOAuthStack({
      idp: { deviceInterval: 1, deviceCodeTtl: 10 },
      mail: {
        [ALICE]: [
          ...listMessages({ from: 'news@letters.example', oneClick: 'https://letters.example/u/1' }),
          ...listMessages({ from: 'deals@shop.example', mailto: 'mailto:leave@shop.example' }),
        ],
      },
      runtime: { agent: { limits: UNLIMITED } },
    });
    agent = await mcpClient(stack.base, (await registerAgent(stack.base)).api_key);
  });
  after(async () => {
    await agent.close();
    await stack.close();
  });

  test('the agent relays the code, the person approves it, the scan runs over XOAUTH2', async () => {
    const opened = await call(agent, { email: ALICE, provider: 'outlook' });
    assert.equal(opened.status, 'awaiting_user');
    assert.equal(opened.verification_uri, `${stack.idp.issuer}/device`);
    assert.match(opened.user_code, /^[A-Z]{4}-[A-Z]{4}$/);
    assert.equal(opened.interval, 1);
    assert.equal(opened.connect_url, undefined, 'no password page for a Microsoft account');
    const waiting = await call(agent, { scan_id: opened.scan_id });
    assert.equal(waiting.status, 'awaiting_user');
    assert.equal(waiting.user_code, opened.user_code);

    await approveDevice(opened.verification_uri, opened.user_code, ALICE);
    const done = await settled(agent, opened.scan_id);
    assert.equal(done.status, 'done', JSON.stringify(done.error));
    assert.equal(done.user_code, undefined);
    assert.deepEqual(done.subscriptions.map((s: State) => s.sender.address).sort(), [
      'deals@shop.example',
      'news@letters.example',
    ]);
    assert.ok((stack.idp.grants.get('urn:ietf:params:oauth:grant-type:device_code') ?? 0) >= 1);
  });

  test('a refusal, another account, a code left to expire: the scan fails and says why', async () => {
    const refused = await call(agent, { email: ALICE, provider: 'outlook' });
    await approveDevice(refused.verification_uri, refused.user_code, ALICE, { deny: true });
    const r = await settled(agent, refused.scan_id);
    assert.equal(r.status, 'failed');
    assert.equal(r.error.code, 'oauth_consent_refused');

    const other = await call(agent, { email: ALICE, provider: 'outlook' });
    await approveDevice(other.verification_uri, other.user_code, 'mallory@example.test');
    const o = await settled(agent, other.scan_id);
    assert.equal(o.status, 'failed');
    assert.equal(o.error.code, 'oauth_wrong_account');

    const left = await call(agent, { email: ALICE, provider: 'outlook' });
    const e = await settled(agent, left.scan_id);
    assert.equal(e.status, 'failed');
    assert.equal(e.error.code, 'oauth_device_code_expired');
  });
});

describe('scan_inbox with provider outlook on a server without Microsoft sign-in', () => {
  test('provider_not_configured', async () => {
    const stack = await startOAuthStack({ unconfigured: true, runtime: { agent: { limits: UNLIMITED } } });
    try {
      const agent = await mcpClient(stack.base, (await registerAgent(stack.base)).api_key);
      const r = await agent.callTool({ name: 'scan_inbox', arguments: { email: ALICE, provider: 'outlook' } });
      assert.equal(toolError(r).code, 'provider_not_configured');
      await agent.close();
    } finally {
      await stack.close();
    }
  });
});
