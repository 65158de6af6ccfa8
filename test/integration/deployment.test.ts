/**
 * The reference deployment (docs/deploy.md) on loopback: the tests' own PostgreSQL, two real
 * service processes and nginx running deploy/nginx.conf itself (test/helpers/nginx.ts replaces
 * only ports and paths), with Dovecot and an HTTPS one-click endpoint as the mail world.
 * Through nginx: limits and the scan quota are one across instances, /ws is sticky, a revocation
 * is seen by both, one instance killed under load costs no request, PostgreSQL stopped for a
 * few seconds gives clean 503 envelopes and recovers without a restart, and SIGTERM drains.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { listMessages } from '../fixtures/list-mail.ts';
import { getWith, listen, postJson } from '../helpers/agent.ts';
import { launchChromium } from '../helpers/browser.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { freePorts } from '../helpers/dovecot-process.ts';
import { type HttpsTarget, startHttpsTarget } from '../helpers/https-target.ts';
import { allowLoopback } from '../helpers/loopback.ts';
import { type Nginx, startNginx } from '../helpers/nginx.ts';
import { type PgServer, startPostgres } from '../helpers/pg-server.ts';
import { type ServerProcess, startServer } from '../helpers/server-process.ts';
import { caPath, trustTestCa } from '../helpers/tls-ca.ts';
import { connectWs, type Msg, type WsClient } from '../helpers/ws-client.ts';

const USER = 'ops@example.test';
const PASSWORD = 'app-password-ops';
const LISTS = 6;

let pg: PgServer;
let dovecot: Dovecot;
let target: HttpsTarget;
let holding = false;
const held: ServerResponse[] = [];
let ports: [number, number];
const instances: (ServerProcess | null)[] = [null, null];
let ngx: Nginx;
/** the instance nginx sends this test's /ws connections to (hash of 127.0.0.1) */
let sticky: 0 | 1;

function startInstance(i: 0 | 1): Promise<ServerProcess> {
  return startServer(
    {
      PORT: String(ports[i]),
      DATABASE_URL: pg.url,
      BASE_URL: ngx.origin,
      TRUST_PROXY: '127.0.0.1',
      DRAIN_SECONDS: '20',
      NODE_EXTRA_CA_CERTS: caPath,
      OUTBOUND_ALLOW_HOSTS: allowLoopback(dovecot.imapsPort, target.port),
    },
    180_000,
  );
}

before(async () => {
  trustTestCa();
  target = await startHttpsTarget((_path, res) => {
    if (holding) held.push(res);
    else res.writeHead(200).end('ok');
  });
  const inbox = Array.from({ length: LISTS }, (_, i) =>
    listMessages({ from: `n${i}@s${i}.example`, listId: `d${i}.example`, oneClick: `${target.origin}/u/${i}` }),
  ).flat();
  [pg, dovecot] = await Promise.all([
    startPostgres(),
    startDovecot({ users: [{ user: USER, password: PASSWORD, mailboxes: { INBOX: inbox } }] }),
  ]);
  ports = (await freePorts(2)) as [number, number];
  // nginx first: the instances' BASE_URL is its address (a page's /ws must come from that origin)
  ngx = await startNginx(ports);
  const [a, b] = await Promise.all([startInstance(0), startInstance(1)]);
  instances[0] = a;
  instances[1] = b;
});
after(async () => {
  await ngx?.close();
  await Promise.all(instances.map((s) => s?.stop('SIGKILL')));
  await Promise.all([pg?.close(), dovecot?.stop(), target?.close()]);
});

/**
 * Starts instance i again and waits out nginx's fail_timeout (2 s, deploy/nginx.conf): until
 * then nginx may still skip it, having seen it refuse connections while it was down.
 */
async function restart(i: 0 | 1) {
  instances[i] = await startInstance(i);
  await new Promise((r) => setTimeout(r, 2500));
}

const direct = (i: 0 | 1) => `http://127.0.0.1:${ports[i]}`;
const wsVia = () => `${ngx.origin.replace('https', 'wss')}/ws`;
const scan = () => ({
  type: 'scan',
  provider: 'custom',
  email: USER,
  password: PASSWORD,
  host: '127.0.0.1',
  port: dovecot.imapsPort,
  tls: 'implicit',
});

/** GETs through nginx from `workers` loops until stop(); every status seen. */
function load(workers = 6) {
  const statuses: number[] = [];
  let running = true;
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      const r = await fetch(`${ngx.origin}/api/v1/categories`, { signal: AbortSignal.timeout(10_000) }).catch(
        () => null,
      );
      statuses.push(r?.status ?? 0);
      await r?.arrayBuffer();
    }
  });
  return {
    statuses,
    async stop() {
      running = false;
      await Promise.all(loops);
      return statuses;
    },
  };
}

/** Which instance ran the last scan: the one whose log has one more "scan done" line than before. */
const scansDone = () => instances.map((s) => (s ? s.stdout.filter((l) => l.includes('"msg":"scan done"')).length : 0));
async function ranTheScan(before: number[]): Promise<0 | 1> {
  // the log line travels through a pipe and may trail the /ws message
  for (let n = 0; n < 100; n++) {
    const i = scansDone().findIndex((count, k) => count > before[k]!);
    if (i === 0 || i === 1) return i;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no instance logged the scan');
}

describe('two instances behind nginx (deploy/nginx.conf)', () => {
  test('the guide limit is one across instances, and a forged X-Forwarded-For does not dodge it', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) {
      const r = await postJson(
        ngx.origin,
        '/api/v1/guide',
        { slug: 'netflix' },
        { 'x-forwarded-for': `198.51.100.${i}` },
      );
      statuses.push(r.status);
      if (r.status === 429) assert.equal(r.body.code, 'RATE_LIMITED');
    }
    assert.equal(statuses.filter((s) => s === 200).length, 20);
    assert.equal(statuses.filter((s) => s === 429).length, 5);
  });

  test('a /ws scan through nginx; the quota is one across instances; /ws is sticky', async () => {
    const before = scansDone();
    const c = await connectWs(wsVia());
    const ready = await c.next('ready');
    c.send(scan());
    const quota = await c.next('quota', 60_000);
    assert.equal(quota.scans_left, 2);
    const done = await c.next('done', 60_000);
    assert.equal(done.subscriptions, LISTS);
    // the other instance counts the same scan
    sticky = await ranTheScan(before);
    const other = (1 - sticky) as 0 | 1;
    const o = await connectWs(`${direct(other).replace('http', 'ws')}/ws`);
    await o.next('ready');
    o.send({ type: 'quota', email: USER });
    assert.equal((await o.next('quota')).scans_left, 2);
    // a resume on the other instance does not find the session: its sign-in lives in one memory
    o.send({ type: 'resume', session: ready.session });
    assert.equal((await o.next('error')).code, 'SESSION_EXPIRED');
    await o.close();
    // through nginx, a second connection reaches the same instance and resumes
    const again = await connectWs(wsVia());
    await again.next('ready');
    again.send({ type: 'resume', session: ready.session });
    assert.equal((await again.next('resumed')).session, ready.session);
    await again.close();
    await c.close();
  });

  test('a key revoked through one instance is refused by both, and a stream on the other hears it', async () => {
    const reg = await postJson(ngx.origin, '/agent/auth', { type: 'anonymous', requested_credential_type: 'api_key' });
    assert.equal(reg.status, 200);
    const key = reg.body.api_key as string;
    const stream = await listen(direct(1), key);
    assert.equal(stream.status, 200);
    assert.equal((await postJson(direct(0), '/agent/auth/revoke', { api_key: key })).status, 200);
    const set = JSON.parse((await stream.next(10_000)).data);
    assert.equal(set.sub_id.id, reg.body.registration_id);
    stream.close();
    for (const origin of [direct(0), direct(1), ngx.origin]) {
      assert.equal((await getWith(origin, '/agent/auth/events', key)).status, 401);
    }
  });

  test('PostgreSQL stopped for a few seconds: /readyz 503, clean envelopes, recovery without a restart', async () => {
    await pg.stop();
    try {
      for (const i of [0, 1] as const) {
        const r = await fetch(`${direct(i)}/readyz`);
        assert.equal(r.status, 503);
        assert.equal(((await r.json()) as { code: string }).code, 'UNAVAILABLE');
      }
      const api = await fetch(`${ngx.origin}/api/v1/services/netflix`);
      assert.equal(api.status, 503);
      assert.match(api.headers.get('content-type') ?? '', /application\/json/);
      assert.equal(((await api.json()) as { code: string }).code, 'UNAVAILABLE');
      await new Promise((r) => setTimeout(r, 2000));
    } finally {
      await pg.start();
    }
    for (const i of [0, 1] as const) {
      let status = 0;
      for (let n = 0; n < 100 && status !== 200; n++) {
        status = (await fetch(`${direct(i)}/readyz`)).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(status, 200, `instance ${i} ready again`);
    }
    assert.equal((await fetch(`${ngx.origin}/api/v1/services/netflix`)).status, 200);
  });

  test('one instance killed under load: every request still succeeds', async () => {
    const l = load();
    try {
      await new Promise((r) => setTimeout(r, 500));
      await instances[1]!.stop('SIGKILL');
      instances[1] = null;
      await new Promise((r) => setTimeout(r, 1500));
    } finally {
      await l.stop();
    }
    const statuses = l.statuses;
    assert.ok(statuses.length > 20, `${statuses.length} requests`);
    assert.deepEqual(
      statuses.filter((s) => s !== 200),
      [],
    );
    await restart(1);
  });

  test('the page says the server restarted and reconnects to the other instance by itself', async () => {
    const browser = await launchChromium();
    try {
      // the tests' CA is not Chromium's: this context accepts nginx's test certificate
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      const page = await context.newPage();
      await page.goto(`${ngx.origin}/`);
      await page.getByLabel('Email address').fill('someone@example.test');
      await page.getByLabel('Email address').blur();
      await page.getByText('3 scans left today for this address.').waitFor();
      // every text the notice shows, however briefly (the reconnection takes a fraction of a second)
      await page.evaluate(`(() => {
        const box = document.getElementById('notice');
        window.notices = [];
        new MutationObserver(() => window.notices.push(box.textContent)).observe(box, { childList: true, characterData: true, subtree: true });
      })()`);
      instances[sticky]!.child.kill('SIGTERM');
      const shown = page
        .locator('#notice')
        .getByText(/^Reconnected after our server restarted/)
        .waitFor({ timeout: 20_000 });
      await shown.catch(async (err: Error) => {
        throw new Error(`${err.message}; the notice showed ${JSON.stringify(await page.evaluate('window.notices'))}`);
      });
      const notices = (await page.evaluate('window.notices')) as string[];
      assert.ok(
        notices.some((n) => n.startsWith('Our server is restarting')),
        `the page said so first: ${JSON.stringify(notices)}`,
      );
      assert.equal(await instances[sticky]!.stop(), 0);
      await restart(sticky);
    } finally {
      await browser.close();
    }
  });

  test('SIGTERM: the batch finishes and reports once, the page reconnects elsewhere, requests go on', async () => {
    const before = scansDone();
    const c = await connectWs(wsVia());
    const ready = await c.next('ready');
    c.send(scan());
    await c.next('done', 60_000);
    const ids = [...new Set(c.all('subscription').map((m) => m.subscription.id as string))];
    const holder = await ranTheScan(before);
    holding = true;
    target.seen.length = 0;
    c.send({ type: 'unsubscribe', ids });
    const until = Date.now() + 30_000;
    while (target.seen.length < 4 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    assert.equal(target.seen.length, 4, 'four one-click requests under way (the per-host cap)');
    const l = load(4);
    const draining = instances[holder]!;
    let summary: Msg;
    try {
      draining.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 500));
      holding = false;
      for (const res of held.splice(0)) res.writeHead(200).end('ok');
      summary = await c.next('unsubscribe_done', 30_000);
    } catch (err) {
      await l.stop();
      throw err;
    }
    const closed = await c.closed;
    assert.equal(closed.code, 1012);
    assert.equal(c.messages.at(-1)!.code, 'SERVICE_RESTARTING');
    const results = c.all('unsubscribe_result');
    assert.deepEqual(results.map((r) => r.id).sort(), [...ids].sort(), 'every id once');
    assert.equal(summary.counts.unsubscribed, LISTS);
    assert.equal(target.seen.length, LISTS, 'each sent once');
    assert.equal(new Set(target.seen.map((s) => s.url)).size, LISTS);
    assert.equal(await draining.stop(), 0);
    instances[holder] = null;
    // the page's reconnection lands on the other instance: the session is gone there
    const back: WsClient = await connectWs(wsVia());
    await back.next('ready');
    back.send({ type: 'resume', session: ready.session });
    assert.equal((await back.next('error')).code, 'SESSION_EXPIRED');
    await back.close();
    const statuses = await l.stop();
    assert.deepEqual(
      statuses.filter((s) => s !== 200),
      [],
      (await ngx.errorLog()).slice(-3000),
    );
  });
});
