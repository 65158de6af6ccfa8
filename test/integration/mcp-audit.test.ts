/**
 * subscription_audit over MCP with the official client: an agent scans a mailbox through the
 * hand-off (the person posts the app password to connect_url over HTTP), then asks for the audit
 * of that address. The mailbox holds the generated billing mail of test/fixtures/receipt-mail.ts
 * (USD, EUR and GBP; US and European formats; monthly, yearly, weekly; HTML-only and plain;
 * adverts, a forgery, Junk and senders not in the catalog): the figures are its answer key, the
 * same as over /ws. Pre-claim keys lack audit.read; revoked keys get 401.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { generateReceipts } from '../fixtures/receipt-mail.ts';
import { type AgentApp, postJson, SINK_PASSWORD, SINK_USER, startAgentApp, UNLIMITED } from '../helpers/agent.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { allowLoopback } from '../helpers/loopback.ts';
import { claimAgent, mcpClient, registerAgent, toolError } from '../helpers/mcp.ts';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';
import { trustTestCa } from '../helpers/tls-ca.ts';
import { waitFor } from '../helpers/wait-for.ts';

const USER = 'erin@example.test';
const PASSWORD = 'audit-app-password';
const now = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000);
const receipts = generateReceipts(now);

let dovecot: Dovecot;
let claimSink: SmtpSink;
let t: AgentApp;

before(async () => {
  trustTestCa();
  claimSink = await startSmtpSink({ user: SINK_USER, password: SINK_PASSWORD, tls: 'starttls' });
  dovecot = await startDovecot({
    users: [
      {
        user: USER,
        password: PASSWORD,
        mailboxes: {
          INBOX: receipts.messages.filter((m) => m.mailbox === 'INBOX'),
          Junk: receipts.messages.filter((m) => m.mailbox === 'Junk'),
        },
      },
    ],
  });
  t = await startAgentApp('PGlite', {
    sink: claimSink,
    agent: { limits: UNLIMITED },
    env: { OUTBOUND_ALLOW_HOSTS: allowLoopback(dovecot.imapsPort) },
  });
});
after(async () => {
  await t?.close();
  await dovecot?.stop();
  await claimSink?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: tool results are checked field by field
type Result = any;
const call = async (c: Client, name: string, args: Record<string, unknown>): Promise<Result> =>
  c.callTool({ name, arguments: args });

/** The person's browser: the connect page, then the form with the app password. */
async function personSignsIn(connectUrl: string): Promise<void> {
  const url = new URL(connectUrl);
  const html = await (await fetch(`${t.origin}${url.pathname}${url.search}`)).text();
  const token = /name="token" value="([^"]+)"/.exec(html)?.[1];
  assert.ok(token, 'the connect page carries its token');
  const posted = await fetch(`${t.origin}/connect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, username: USER, password: PASSWORD }).toString(),
    redirect: 'manual',
  });
  assert.equal(posted.status, 303);
}

describe('subscription_audit over MCP', () => {
  let agent: Client;
  let reg: Awaited<ReturnType<typeof registerAgent>>;
  before(async () => {
    reg = await registerAgent(t.origin);
    agent = await mcpClient(t.origin, reg.api_key);
    const opened = (
      await call(agent, 'scan_inbox', {
        email: USER,
        provider: 'custom',
        imap: { host: '127.0.0.1', port: dovecot.imapsPort, tls: 'implicit' },
      })
    ).structuredContent;
    await personSignsIn(opened.connect_url);
    const done = await waitFor(async () => {
      const s = (await call(agent, 'scan_inbox', { scan_id: opened.scan_id })).structuredContent;
      return s.status === 'done' || s.status === 'failed' ? s : undefined;
    }, 30_000);
    assert.equal(done.status, 'done', JSON.stringify(done.error));
  });
  after(() => agent?.close());

  test('the tool is listed with its input and output schemas and annotations', async () => {
    const { tools } = await agent.listTools();
    const tool = tools.find((x) => x.name === 'subscription_audit');
    assert.ok(tool);
    assert.deepEqual(tool.inputSchema.required, ['email']);
    assert.deepEqual(Object.keys(tool.outputSchema?.properties ?? {}).sort(), [
      'frequency',
      'messages',
      'period',
      'senders',
      'spend',
    ]);
    assert.equal(tool.annotations?.readOnlyHint, true);
  });

  test('a pre-claim key lacks audit.read', async () => {
    assert.equal(toolError(await call(agent, 'subscription_audit', { email: USER })).code, 'insufficient_scope');
  });

  test('after the claim: per-service spend and monthly totals as the receipts say (a slow audit is joined, not restarted)', async () => {
    await claimAgent(t, claimSink, reg, 'owner-audit@example.test');
    // An answer that cannot wait: audit_running, and the audit goes on; the next call joins it.
    const settings = t.runtime.handoffs.settings as { batchWaitMs: number };
    const wait = settings.batchWaitMs;
    settings.batchWaitMs = 0;
    const early = toolError(await call(agent, 'subscription_audit', { email: USER }));
    settings.batchWaitMs = wait;
    assert.equal(early.code, 'audit_running');
    assert.equal(early.retry_after, 10);
    const r = await call(agent, 'subscription_audit', { email: USER });
    assert.equal(r.isError, undefined, JSON.stringify(r.content));
    const audit = r.structuredContent;
    assert.deepEqual(audit.spend.monthly_total, receipts.monthlyTotal);
    assert.deepEqual(audit.spend.services.map((s: Result) => s.slug).sort(), receipts.spend.map((s) => s.slug).sort());
    for (const want of receipts.spend) {
      const got = audit.spend.services.find((s: Result) => s.slug === want.slug);
      assert.deepEqual(
        [got.amount, got.currency, got.billing_period, got.monthly_amount, got.last_charged, got.receipts],
        [
          want.amount,
          want.currency,
          want.billing_period,
          want.monthly_amount,
          want.last_charged?.toISOString() ?? null,
          want.receipts,
        ],
        want.slug,
      );
    }
    // the text content carries the same JSON for clients that only read text
    assert.deepEqual(JSON.parse(r.content[0].text), audit);
    assert.equal(audit.senders, 1, 'the Netflix advert is the one list');
  });

  test('an address without a finished scan of this agent is no_scan; another agent’s scan is not seen', async () => {
    assert.equal(toolError(await call(agent, 'subscription_audit', { email: 'nobody@example.test' })).code, 'no_scan');
    const other = await registerAgent(t.origin);
    await claimAgent(t, claimSink, other, 'other-owner@example.test');
    const stranger = await mcpClient(t.origin, other.api_key);
    assert.equal(toolError(await call(stranger, 'subscription_audit', { email: USER })).code, 'no_scan');
    await stranger.close();
  });

  test('a revoked key gets 401', async () => {
    const revoked = await postJson(t.origin, '/agent/auth/revoke', { api_key: reg.api_key });
    assert.equal(revoked.status, 200);
    const res = await fetch(`${t.origin}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${reg.api_key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'subscription_audit', arguments: { email: USER } },
      }),
    });
    assert.equal(res.status, 401);
  });
});
