/**
 * Mailbox passwords and OAuth tokens live in memory only. The real service (a child process
 * with its own data dir and the most verbose logging) scans with sentinel passwords — once
 * signing in, once refused, once unable to connect — and signs in with Microsoft (the test
 * identity provider) and out again; afterwards the data dir, everything it logged, and every
 * file written under the temp dir during the test are searched for the sentinels and for every
 * token the provider issued: zero hits.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { generateMailbox } from '../fixtures/mail-generator.ts';
import { startDovecot } from '../helpers/dovecot.ts';
import { createHttpBrowser, signIn } from '../helpers/http-browser.ts';
import { idpForNewPort } from '../helpers/oauth-stack.ts';
import { startServer } from '../helpers/server-process.ts';
import { caPath } from '../helpers/tls-ca.ts';
import { connectWs } from '../helpers/ws-client.ts';

const GOOD = 'SENTINEL-good-pw-7f3a9c51';
const BAD = 'SENTINEL-bad-pw-2b8e0d44';
const UNREACHABLE = 'SENTINEL-unreachable-pw-91cc';

async function* files(dir: string, since: number, skip: string[]): AsyncGenerator<string> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (skip.some((s) => p.startsWith(s))) continue;
    // a copy of this very file (a checkout under /tmp) holds the sentinels by definition
    if (e.name === 'credentials.test.ts') continue;
    if (e.isDirectory()) yield* files(p, since, skip);
    else if (e.isFile()) {
      const st = await stat(p).catch(() => null);
      if (st && st.mtimeMs >= since && st.size < 64 * 1024 * 1024) yield p;
    }
  }
}

async function hits(paths: AsyncIterable<string>, needles: string[]): Promise<string[]> {
  const found: string[] = [];
  for await (const p of paths) {
    const buf = await readFile(p).catch(() => null);
    if (!buf) continue;
    for (const n of needles)
      if (buf.includes(n) || buf.includes(Buffer.from(n).toString('base64'))) found.push(`${p}: ${n}`);
  }
  return found;
}

test('no mailbox password reaches the data dir, the logs or a temp file', async () => {
  const started = Date.now() - 1000;
  const mail = generateMailbox({ seed: 21, lists: 10, messagesPerList: [2, 5], plain: 5, nasty: false });
  // Dovecot is the mail server: its own config necessarily holds the test user's password.
  const dovecot = await startDovecot({
    users: [{ user: 'carol@example.test', password: GOOD, mailboxes: { INBOX: mail.messages } }],
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'optout-cred-'));
  const server = await startServer(
    {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'trace',
      NODE_EXTRA_CA_CERTS: caPath,
      OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${dovecot.imapsPort},127.0.0.1:9`,
    },
    180_000,
  );
  try {
    const c = await connectWs(`${server.url.replace('http', 'ws')}/ws`);
    await c.next('ready');
    const scan = (password: string, port = dovecot.imapsPort) =>
      c.send({
        type: 'scan',
        provider: 'custom',
        email: 'carol@example.test',
        password,
        host: '127.0.0.1',
        port,
        tls: 'implicit',
      });
    scan(GOOD);
    assert.ok((await c.next('done', 60_000)).subscriptions > 0);
    scan(BAD);
    assert.equal((await c.next('error')).code, 'AUTH_FAILED');
    scan(UNREACHABLE, 9);
    assert.equal((await c.next('error')).code, 'CONNECT_FAILED');
    // the channel never echoes a password back either
    for (const n of [GOOD, BAD, UNREACHABLE]) assert.ok(!JSON.stringify(c.messages).includes(n));
    await c.close();
  } finally {
    assert.equal(await server.stop(), 0);
  }
  const logs = [...server.stdout, ...server.stderr].join('\n');
  assert.ok(logs.includes('scan done'), 'the log was captured');
  for (const n of [GOOD, BAD, UNREACHABLE]) assert.ok(!logs.includes(n), `log contains ${n}`);
  assert.deepEqual(await hits(files(dataDir, 0, []), [GOOD, BAD, UNREACHABLE]), []);
  assert.deepEqual(await hits(files(tmpdir(), started, [dovecot.dir, dataDir]), [GOOD, BAD, UNREACHABLE]), []);
  await dovecot.stop();
  await rm(dataDir, { recursive: true, force: true });
});

test('no OAuth token or session cookie reaches the data dir, the logs or a temp file', async () => {
  const started = Date.now() - 1000;
  const { port, base, idp } = await idpForNewPort();
  const dataDir = await mkdtemp(join(tmpdir(), 'optout-cred-'));
  const secrets: string[] = [];
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    server = await startServer(
      {
        PORT: String(port),
        BASE_URL: base,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'trace',
        NODE_EXTRA_CA_CERTS: caPath,
        OAUTH_ISSUER: idp.issuer,
        OAUTH_CLIENT_ID: idp.clientId,
      },
      180_000,
    );
    const browser = createHttpBrowser();
    const home = await signIn(browser, `${base}/auth/microsoft/start`, 'carol@example.test');
    assert.equal(home.url, `${base}/`);
    const session = browser.cookie(`${base}/`, 'optout_ms')!.value;
    const who = (await (await browser.request(`${base}/auth/microsoft/session`)).json()) as { email: string };
    assert.equal(who.email, 'carol@example.test');
    // the sealed sign-in cookie is not a token, but it is a secret of its own
    secrets.push(session, ...browser.hops.flatMap((h) => h.setCookies.map((c) => c.split(';')[0]!.split('=')[1]!)));
    const out = await browser.request(`${base}/auth/microsoft/signout`, { method: 'POST', origin: base });
    assert.equal(out.status, 303);
  } finally {
    await idp.stop();
    if (server) assert.equal(await server.stop(), 0);
  }
  const tokens = [...idp.issued];
  assert.ok(tokens.length >= 3, 'access, refresh and ID tokens were issued');
  const needles = [...tokens, ...secrets.filter((v) => v.length > 20)];
  const logs = [...server.stdout, ...server.stderr].join('\n');
  assert.ok(logs.includes('microsoft sign-in completed'), 'the log was captured');
  for (const n of needles) assert.ok(!logs.includes(n), 'a token or cookie was logged');
  assert.deepEqual(await hits(files(dataDir, 0, []), needles), []);
  assert.deepEqual(await hits(files(tmpdir(), started, [dataDir]), needles), []);
  await rm(dataDir, { recursive: true, force: true });
});
