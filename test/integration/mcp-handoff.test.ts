/**
 * An agent scans a mailbox through the MCP tools without ever holding its password: scan_inbox
 * opens a hand-off, the person posts the app password to connect_url (over HTTP, as a browser
 * would), the scan runs against a private Dovecot, the agent polls for the results and — once
 * a person has claimed its registration — unsubscribes through real peers (an HTTPS one-click
 * endpoint, an SMTP server). Then the wipe: a hand-off with a short lifetime ends, and with it
 * the scan, the password and the results.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { listMessages } from '../fixtures/list-mail.ts';
import { type AgentApp, SINK_PASSWORD, SINK_USER, startAgentApp, UNLIMITED } from '../helpers/agent.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { type HttpsTarget, startHttpsTarget } from '../helpers/https-target.ts';
import { allowLoopback } from '../helpers/loopback.ts';
import { claimAgent, mcpClient, registerAgent, toolError } from '../helpers/mcp.ts';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';
import { trustTestCa } from '../helpers/tls-ca.ts';
import { waitFor } from '../helpers/wait-for.ts';

const USER = 'dana@example.test';
const PASSWORD = 'app-password-123';

let dovecot: Dovecot;
let target: HttpsTarget;
let mailSink: SmtpSink;
let claimSink: SmtpSink;

before(async () => {
  trustTestCa();
  target = await startHttpsTarget();
  mailSink = await startSmtpSink({ user: USER, password: PASSWORD, tls: 'implicit' });
  claimSink = await startSmtpSink({ user: SINK_USER, password: SINK_PASSWORD, tls: 'starttls' });
  dovecot = await startDovecot({
    users: [
      {
        user: USER,
        password: PASSWORD,
        mailboxes: {
          INBOX: [
            ...listMessages({ from: 'news@oneclick.example', oneClick: `${target.origin}/u/news` }),
            ...listMessages({ from: 'deals@mailonly.example', mailto: 'mailto:leave@mailonly.example' }),
            ...listMessages({ from: 'blog@linkonly.example', http: ['https://linkonly.example/unsub?u=1'] }),
          ],
        },
      },
    ],
  });
});
after(async () => {
  await dovecot.stop();
  await target.close();
  await mailSink.close();
  await claimSink.close();
});

const env = () => ({
  OUTBOUND_ALLOW_HOSTS: allowLoopback(dovecot.imapsPort, target.port, mailSink.port),
});
const custom = () => ({
  email: USER,
  provider: 'custom',
  imap: { host: '127.0.0.1', port: dovecot.imapsPort, tls: 'implicit' },
  smtp: { host: '127.0.0.1', port: mailSink.port, tls: 'implicit' },
});

// biome-ignore lint/suspicious/noExplicitAny: tool results are checked field by field
type State = any;
const scanInbox = async (c: Client, args: Record<string, unknown>): Promise<State> => {
  const r = await c.callTool({ name: 'scan_inbox', arguments: args });
  assert.equal(r.isError, undefined, JSON.stringify(r.content));
  return r.structuredContent;
};

/** The person's browser: opens the page, posts the form, follows the 303 to the page again. */
async function personSignsIn(t: AgentApp, connectUrl: string, password: string) {
  const url = new URL(connectUrl);
  assert.equal(`${url.origin}`, t.config.baseUrl, 'connect_url is built from BASE_URL');
  const page = await fetch(`${t.origin}${url.pathname}${url.search}`);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.ok(html.includes(`value="${USER}"`), 'the page names the address it is bound to');
  const token = /name="token" value="([^"]+)"/.exec(html)?.[1];
  assert.ok(token);
  const posted = await fetch(`${t.origin}/connect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, username: USER, password }).toString(),
    redirect: 'manual',
  });
  assert.equal(posted.status, 303);
  const after = await fetch(`${t.origin}${posted.headers.get('location')}`);
  assert.equal(after.status, 200);
  return after.text();
}

const untilDone = (c: Client, scanId: string) =>
  waitFor(async () => {
    const s = await scanInbox(c, { scan_id: scanId });
    return s.status === 'done' || s.status === 'failed' ? s : undefined;
  }, 30_000);

describe('scan hand-off over MCP', () => {
  let t: AgentApp;
  before(async () => {
    t = await startAgentApp('PGlite', { sink: claimSink, agent: { limits: UNLIMITED }, env: env() });
  });
  after(() => t.close());

  test('the agent gets a connect_url, the person signs in there, the agent reads the subscriptions; unsubscribing needs the claim', async () => {
    const reg = await registerAgent(t.origin);
    const agent = await mcpClient(t.origin, reg.api_key);
    const opened = await scanInbox(agent, custom());
    assert.equal(opened.status, 'awaiting_user');
    assert.match(opened.scan_id, /^scn_[A-Za-z0-9_-]{43}$/);
    assert.match(opened.connect_url, /\/connect\?token=hoc_[A-Za-z0-9_-]{43}$/);
    const left = Date.parse(opened.expires_at) - Date.now();
    assert.ok(left > 14 * 60_000 && left <= 15 * 60_000, `expires in ${left} ms`);
    assert.equal((await scanInbox(agent, { scan_id: opened.scan_id })).status, 'awaiting_user');

    // a wrong password: the page says so and lets the person try again; the agent sees why
    const wrong = await personSignsIn(t, opened.connect_url, 'not-the-password');
    assert.match(wrong, /role="alert"/);
    assert.match(wrong, /aria-invalid="true"/);
    const failed = await scanInbox(agent, { scan_id: opened.scan_id });
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error.code, 'auth_failed');
    assert.equal(failed.connect_url, opened.connect_url);
    const quotaBefore = await t.runtime.quota.status(USER);

    await personSignsIn(t, opened.connect_url, PASSWORD);
    const done = await untilDone(agent, opened.scan_id);
    assert.equal(done.status, 'done', JSON.stringify(done.error));
    assert.equal(done.connect_url, undefined);
    assert.equal(done.scanned, 9);
    const bySender = new Map<string, State>(done.subscriptions.map((s: State) => [s.sender.address, s]));
    assert.deepEqual([...bySender.keys()].sort(), [
      'blog@linkonly.example',
      'deals@mailonly.example',
      'news@oneclick.example',
    ]);
    assert.equal((await t.runtime.quota.status(USER)).scans_left, quotaBefore.scans_left - 1, 'one scan counted');
    const ids = done.subscriptions.map((s: State) => s.id);

    // pre-claim: no inbox.write
    const refused = await agent.callTool({
      name: 'batch_unsubscribe',
      arguments: { scan_id: opened.scan_id, subscriptions: ids },
    });
    assert.equal(toolError(refused).code, 'insufficient_scope');
    assert.equal(target.seen.length, 0);

    await claimAgent(t, claimSink, reg, 'owner@example.test');
    // what another tool (the audit) builds on: the newest done hand-off of an address, and its messages
    const held = t.runtime.handoffs.byConnectToken(new URL(opened.connect_url).searchParams.get('token')!)!;
    assert.equal(t.runtime.handoffs.latestDone(held.request.registrationId, USER.toUpperCase()), held);
    assert.equal(t.runtime.handoffs.latestDone('reg_someone_else', USER), null);
    const seen: string[] = [];
    const stop = held.watch((m) => seen.push(m.type));
    const dry = (
      await agent.callTool({
        name: 'batch_unsubscribe',
        arguments: { scan_id: opened.scan_id, subscriptions: ids, dry_run: true },
      })
    ).structuredContent as State;
    assert.equal(dry.status, 'done');
    assert.equal(dry.results.length, 3);
    assert.ok(dry.results.every((r: State) => r.dry_run));
    assert.equal(target.seen.length, 0, 'a dry run sends nothing');
    stop();
    assert.deepEqual([...new Set(seen)], ['unsubscribe_result', 'unsubscribe_done']);

    const real = (
      await agent.callTool({
        name: 'batch_unsubscribe',
        arguments: { scan_id: opened.scan_id, subscriptions: [...ids, 'no-such-id'] },
      })
    ).structuredContent as State;
    assert.equal(real.status, 'done');
    const byId = new Map<string, State>(real.results.map((r: State) => [r.id, r]));
    assert.equal(byId.get(bySender.get('news@oneclick.example')!.id)!.status, 'unsubscribed');
    assert.equal(byId.get(bySender.get('deals@mailonly.example')!.id)!.status, 'email_sent');
    assert.equal(byId.get(bySender.get('blog@linkonly.example')!.id)!.status, 'open_link');
    assert.equal(byId.get('no-such-id')!.status, 'failed');
    assert.deepEqual(real.counts, { unsubscribed: 1, email_sent: 1, open_link: 1, skipped: 0, failed: 1 });
    assert.equal(target.seen.filter((s) => s.method === 'POST').length, 1);
    assert.equal(target.seen[0]!.body, 'List-Unsubscribe=One-Click');
    assert.ok(mailSink.messages.some((m) => m.to.includes('leave@mailonly.example') && m.from === USER));

    // scan_inbox reports the batch too
    const after = await scanInbox(agent, { scan_id: opened.scan_id });
    assert.equal(after.unsubscribe.status, 'done');
    await agent.close();
  });

  test('a scan belongs to the agent that opened it; an unknown scan_id is scan_expired', async () => {
    const a = await mcpClient(t.origin, (await registerAgent(t.origin)).api_key);
    const b = await mcpClient(t.origin, (await registerAgent(t.origin)).api_key);
    const opened = await scanInbox(a, custom());
    const other = await b.callTool({ name: 'scan_inbox', arguments: { scan_id: opened.scan_id } });
    assert.equal(toolError(other).code, 'scan_expired');
    const made = await b.callTool({ name: 'scan_inbox', arguments: { scan_id: 'scn_nothing' } });
    assert.equal(toolError(made).code, 'scan_expired');
    await a.close();
    await b.close();
  });

  test('arguments that do not fit: no imap for custom, scan_id with an address, no provider', async () => {
    const a = await mcpClient(t.origin, (await registerAgent(t.origin)).api_key);
    for (const args of [
      { email: USER, provider: 'custom' },
      { scan_id: 'scn_x', email: USER },
      { email: USER },
      { email: 'not-an-address', provider: 'gmail' },
    ]) {
      const r = await a.callTool({ name: 'scan_inbox', arguments: args });
      assert.equal(r.isError, true, JSON.stringify(args));
    }
    await a.close();
  });

  test('the connect page of an unknown token is a 404 page; nothing logs the password or the tokens', async () => {
    const gone = await fetch(`${t.origin}/connect?token=hoc_unknown`);
    assert.equal(gone.status, 404);
    const logs = t.logs.join('');
    assert.ok(!logs.includes(PASSWORD), 'the app password is not logged');
    assert.ok(!/hoc_[A-Za-z0-9_-]{43}/.test(logs), 'no connect token is logged');
    assert.ok(!/scn_[A-Za-z0-9_-]{43}/.test(logs), 'no scan_id is logged');
  });
});

describe('the wipe', () => {
  let t: AgentApp;
  before(async () => {
    t = await startAgentApp('PGlite', {
      sink: claimSink,
      agent: { limits: UNLIMITED },
      env: { ...env(), SCAN_DAILY_LIMIT: '2' },
      runtime: { handoff: { lifetimeMs: 8000 } },
    });
  });
  after(() => t.close());

  test('at expires_at the scan, its password and its results are gone: scan_inbox and batch_unsubscribe say scan_expired, the page has ended', async () => {
    const reg = await registerAgent(t.origin);
    await claimAgent(t, claimSink, reg, 'wiper@example.test');
    const agent = await mcpClient(t.origin, reg.api_key);
    const opened = await scanInbox(agent, custom());
    assert.ok(Date.parse(opened.expires_at) - Date.now() <= 8000);
    await personSignsIn(t, opened.connect_url, PASSWORD);
    const done = await untilDone(agent, opened.scan_id);
    assert.equal(done.status, 'done');
    assert.equal(t.runtime.handoffs.size, 1);
    const token = new URL(opened.connect_url).searchParams.get('token')!;
    const held = t.runtime.handoffs.byConnectToken(token)!;
    assert.ok(held.session.lastScan?.creds.password, 'the sign-in is held while the hand-off lives');
    await new Promise((r) => setTimeout(r, Date.parse(opened.expires_at) - Date.now() + 100));
    assert.equal(
      toolError(await agent.callTool({ name: 'scan_inbox', arguments: { scan_id: opened.scan_id } })).code,
      'scan_expired',
    );
    assert.equal(t.runtime.handoffs.size, 0);
    assert.equal(held.session.ended, true);
    assert.equal(held.session.lastScan, null, 'credentials and results dropped');
    const batch = await agent.callTool({
      name: 'batch_unsubscribe',
      arguments: { scan_id: opened.scan_id, subscriptions: ['x'] },
    });
    assert.equal(toolError(batch).code, 'scan_expired');
    const page = await fetch(`${t.origin}/connect?token=${token}`);
    assert.equal(page.status, 404);
    await agent.close();
  });

  test('the daily allowance: a mailbox with no scans left gets scan_quota_exceeded at once', async () => {
    const agent = await mcpClient(t.origin, (await registerAgent(t.origin)).api_key);
    await t.runtime.quota.take(USER);
    await t.runtime.quota.take(USER);
    const r = await agent.callTool({ name: 'scan_inbox', arguments: custom() });
    const e = toolError(r);
    assert.equal(e.code, 'scan_quota_exceeded');
    assert.match(String(e.resets_at), /^\d{4}-\d\d-\d\dT00:00:00\.000Z$/);
    await agent.close();
  });

  test('the person can wipe at once from the page', async () => {
    const h = t.runtime.handoffs.create({ registrationId: 'reg_x', email: 'someone@example.test', provider: 'gmail' });
    assert.ok(h.ok);
    const r = await fetch(`${t.origin}/connect/forget`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: h.handoff.connectToken }).toString(),
    });
    assert.equal(r.status, 200);
    assert.equal(h.handoff.session.ended, true);
    assert.equal(t.runtime.handoffs.byConnectToken(h.handoff.connectToken), null);
  });
});
