import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { listenWs, startTestApp, type TestApp } from '../helpers/app.ts';
import { connectWs } from '../helpers/ws-client.ts';

const ORIGIN = 'http://127.0.0.1:3999';
let t: TestApp;
let wsUrl: string;

before(async () => {
  t = await startTestApp({
    env: { BASE_URL: ORIGIN, ALLOWED_ORIGINS: 'https://app.example.org' },
    runtime: { worker: false, channel: { idleMs: 300, lifetimeMs: 1500 } },
  });
  wsUrl = await listenWs(t);
});
after(() => t.close());

test('an idle connection is closed with 1000 "idle"', async () => {
  const c = await connectWs(wsUrl, ORIGIN);
  await c.next('ready');
  const closed = await c.closed;
  assert.deepEqual(closed, { code: 1000, reason: 'idle' });
});

test('messages keep a connection alive until its lifetime ends', async () => {
  const c = await connectWs(wsUrl, ORIGIN);
  await c.next('ready');
  const timer = setInterval(() => c.send({ type: 'quota', email: 'someone@example.test' }), 100);
  const closed = await c.closed;
  clearInterval(timer);
  assert.deepEqual(closed, { code: 1000, reason: 'session lifetime reached' });
  assert.ok(c.all('quota').length > 5, 'it answered while alive');
});

test('a configured extra origin may connect; the base URL’s origin too; others not', async () => {
  const a = await connectWs(wsUrl, 'https://app.example.org');
  await a.next('ready');
  await a.close();
  const b = await connectWs(wsUrl, ORIGIN);
  await b.next('ready');
  await b.close();
  await assert.rejects(connectWs(wsUrl, 'https://app.example.org.evil.example'), /403/);
});
