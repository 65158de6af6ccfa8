import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../test/helpers/app.ts';
import { loopbackCatalog } from '../../test/helpers/catalog.ts';
import { ENGINES, startAppOn } from '../../test/helpers/engines.ts';
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts';
import { waitFor } from '../../test/helpers/wait-for.ts';

const FAST = { pollingIntervalSeconds: 0.5, heartbeatSeconds: 10, superviseIntervalSeconds: 1 };

const post = (t: TestApp, payload: unknown, ip = '198.51.100.10') =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/link-check',
    payload: JSON.stringify(payload),
    headers: { 'content-type': 'application/json' },
    remoteAddress: ip,
  });

const record = async (t: TestApp, slug: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/v1/services/${slug}` })).json().data;

for (const engine of ENGINES) {
  describe(`link check on ${engine}`, () => {
    describe('POST /api/v1/link-check', () => {
      let target: HttpTarget;
      let t: TestApp;
      before(async () => {
        target = await startHttpTarget();
        t = await startAppOn(engine, {
          env: { OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${target.port}` },
          catalog: loopbackCatalog([
            { slug: 'alpha', url: `${target.origin}/account/cancel` },
            { slug: 'beta', url: `${target.origin}/beta/cancel` },
            { slug: 'gamma', url: `${target.origin}/gamma/cancel`, help: `${target.origin}/gamma/help` },
          ]),
          runtime: { queueTiming: FAST },
        });
      });
      after(async () => {
        await t.close();
        await target.close();
      });

      test('answers 202 {queued:true} with an empty message, then the record shows the outcome', async () => {
        const res = await post(t, { slug: 'alpha' });
        assert.equal(res.statusCode, 202);
        assert.deepEqual(res.json(), { code: '0', data: { queued: true }, message: '' });
        const status = await waitFor(async () => (await record(t, 'alpha')).link_status ?? undefined);
        assert.equal(status.outcome, 'ok');
        assert.equal(status.http_status, 200);
        assert.equal(status.final_url, `${target.origin}/account/cancel`);
        const rec = await record(t, 'alpha');
        assert.equal(rec.last_verified, status.checked_at);
        assert.deepEqual(rec.links, [
          {
            url: `${target.origin}/account/cancel`,
            roles: ['cancel', 'website'],
            check: { ...status, last_reached_at: status.checked_at },
          },
        ]);
        const page = await t.app.inject({ method: 'GET', url: '/services/alpha' });
        assert.ok(
          page.body.includes(`data-checked-at="${status.checked_at}"`),
          'the page shows the same check at once',
        );
        const hits = target.seen.filter((s) => s.url === '/account/cancel');
        assert.equal(hits.length, 1);
        assert.match(String(hits[0]!.headers['user-agent']), /optout-linkcheck/);
        assert.equal(hits[0]!.headers.cookie, undefined);
      });

      test('requests while a check is pending join it: the page is fetched once', async () => {
        target.hold = true;
        const before = target.seen.filter((s) => s.url === '/beta/cancel').length;
        // Counted before the POST: the worker may fetch the page before the 202 is read.
        const seen = target.seen.length;
        const first = await post(t, { slug: 'beta' });
        assert.equal(first.statusCode, 202);
        await target.waitForRequests(seen + 1);
        for (let i = 0; i < 3; i++) assert.equal((await post(t, { slug: 'beta' })).statusCode, 202);
        target.release();
        await waitFor(async () => (await record(t, 'beta')).link_status ?? undefined);
        await new Promise((r) => setTimeout(r, 1500));
        assert.equal(target.seen.filter((s) => s.url === '/beta/cancel').length - before, 1);
      });

      test('before any check the record lists its links with no result', async () => {
        const rec = await record(t, 'gamma');
        assert.deepEqual(rec.links, [
          { url: `${target.origin}/gamma/cancel`, roles: ['cancel', 'website'], check: null },
          { url: `${target.origin}/gamma/help`, roles: ['help'], check: null },
        ]);
      });

      test('an unknown slug is 404 and queues nothing', async () => {
        const res = await post(t, { slug: 'nope' });
        assert.equal(res.statusCode, 404);
        assert.equal(res.json().code, 'NOT_FOUND');
      });

      test('a body without slug is 400 naming the field', async () => {
        const res = await post(t, { url: 'http://169.254.169.254/' });
        assert.equal(res.statusCode, 400);
        assert.match(res.json().message, /body\.slug/);
      });
    });
  });
}

describe('link-check rate limit', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ runtime: { worker: false, queueTiming: FAST } });
  });
  after(() => t.close());

  test('30 per minute per client IP, then 429 RATE_LIMITED with Retry-After and RateLimit headers', async () => {
    for (let i = 0; i < 30; i++) {
      const res = await post(t, { slug: 'netflix' }, '198.51.100.77');
      assert.equal(res.statusCode, 202, `request ${i + 1}`);
      assert.equal(res.headers['ratelimit-limit'], '30');
      assert.equal(res.headers['ratelimit-remaining'], String(29 - i));
      // a page of another origin may read them (CORS)
      assert.match(String(res.headers['access-control-expose-headers']), /\bRateLimit-Remaining\b/);
    }
    const refused = await post(t, { slug: 'netflix' }, '198.51.100.77');
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().code, 'RATE_LIMITED');
    const retry = Number(refused.headers['retry-after']);
    assert.ok(retry >= 1 && retry <= 60);
    assert.equal(refused.headers['ratelimit-remaining'], '0');
    assert.equal(refused.headers['ratelimit-policy'], '30;w=60');
    assert.match(String(refused.headers['access-control-expose-headers']), /\bRetry-After\b/);
    // another client is unaffected
    assert.equal((await post(t, { slug: 'netflix' }, '198.51.100.78')).statusCode, 202);
  });
});
