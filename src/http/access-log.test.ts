import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../test/helpers/app.ts';

// The real app with its real logger (lines captured), plus two routes of the test's own: one that
// fails and one slower than LOG_SLOW_MS. The threshold leaves room for an ordinary request on a
// loaded test machine (at 50 ms a cold first request was sometimes logged as slow).
let t: TestApp;
before(async () => {
  t = await startTestApp({
    env: { LOG_SLOW_MS: '1000' },
    setup(app) {
      app.get('/api/v1/_boom', async () => {
        throw new Error('internal detail');
      });
      app.get('/api/v1/_slow', async () => {
        await new Promise((r) => setTimeout(r, 1100));
        return { code: '0', data: null, message: '' };
      });
    },
  });
});
after(() => t.close());

type Line = Record<string, unknown>;
const accessLines = (): Line[] =>
  t.logs
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line)
    .filter((l) => l.msg === 'request');

async function linesFor(url: string): Promise<{ status: number; lines: Line[] }> {
  const before = accessLines().length;
  const res = await t.app.inject({ method: 'GET', url });
  return { status: res.statusCode, lines: accessLines().slice(before) };
}

describe('access log', () => {
  test('a completed request is one info line: request id, method, route pattern, status, duration', async () => {
    const { status, lines } = await linesFor('/api/v1/services/netflix?q=secret-looking');
    assert.equal(status, 200);
    assert.equal(lines.length, 1);
    const [line] = lines;
    assert.equal(line!.level, 30);
    assert.equal(line!.method, 'GET');
    assert.equal(line!.route, '/api/v1/services/:slug');
    assert.equal(line!.status, 200);
    assert.equal(typeof line!.ms, 'number');
    assert.match(String(line!.reqId), /\S/);
    assert.ok(!('url' in line!), 'no URL on a successful request');
    assert.ok(!JSON.stringify(line).includes('secret-looking'));
    // Fastify's own two lines per request are off
    assert.ok(!t.logs.join('').includes('incoming request'));
  });

  test('a 4xx line adds the URL with secret query values blanked, the client address and the error code', async () => {
    const { status, lines } = await linesFor('/api/v1/nowhere?token=s3cr3t-value&page=2');
    assert.equal(status, 404);
    assert.equal(lines.length, 1);
    const [line] = lines;
    assert.equal(line!.level, 30);
    assert.equal(line!.route, null);
    assert.equal(line!.code, 'NOT_FOUND');
    assert.equal(line!.url, '/api/v1/nowhere?token=[redacted]&page=2');
    assert.equal(line!.ip, '127.0.0.1');
    assert.ok(!t.logs.join('').includes('s3cr3t-value'));
  });

  test('a validation failure names its code', async () => {
    const { status, lines } = await linesFor('/api/v1/services?page=0');
    assert.equal(status, 400);
    assert.equal(lines[0]!.code, 'INVALID_REQUEST');
    assert.equal(lines[0]!.route, '/api/v1/services');
  });

  test('a 5xx is logged at error with its detail', async () => {
    const { status, lines } = await linesFor('/api/v1/_boom');
    assert.equal(status, 500);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.level, 50);
    assert.equal(lines[0]!.code, 'INTERNAL');
    assert.equal(lines[0]!.url, '/api/v1/_boom');
  });

  test('a request slower than LOG_SLOW_MS is logged at warn with its detail', async () => {
    const { status, lines } = await linesFor('/api/v1/_slow?x=1');
    assert.equal(status, 200);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.level, 40);
    assert.equal(lines[0]!.slow, true);
    assert.ok(Number(lines[0]!.ms) >= 1000);
    assert.equal(lines[0]!.url, '/api/v1/_slow?x=1');
  });

  test('above info, successful requests write nothing', async () => {
    const quiet = await startTestApp({ env: { LOG_LEVEL: 'warn' } });
    try {
      await quiet.app.inject({ method: 'GET', url: '/api/v1/services/netflix' });
      await quiet.app.inject({ method: 'GET', url: '/api/v1/nowhere' });
      assert.equal(quiet.logs.join(''), '');
    } finally {
      await quiet.close();
    }
  });
});
