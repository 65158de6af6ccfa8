import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestApp } from '../../test/helpers/app.ts';
import { recordCheckedOk } from '../../test/helpers/catalog.ts';
import { ENGINES, startAppOn } from '../../test/helpers/engines.ts';

for (const engine of ENGINES) {
  describe(`catalog API on ${engine}`, () => {
    let t: TestApp;
    before(async () => {
      t = await startAppOn(engine);
    });
    after(() => t.close());

    const get = async (url: string) => {
      const res = await t.app.inject({ method: 'GET', url });
      return { status: res.statusCode, headers: res.headers, body: res.json() };
    };

    describe('GET /api/v1/services', () => {
      test('a search for netflix answers code "0" with Netflix first', async () => {
        const { status, body } = await get('/api/v1/services?q=netflix');
        assert.equal(status, 200);
        assert.equal(body.code, '0');
        assert.equal(body.message, '');
        assert.equal(body.data.items[0].slug, 'netflix');
        assert.ok(body.data.total >= 1);
      });

      test('search ignores case and accents and matches domains', async () => {
        const a = await get('/api/v1/services?q=NETFLÍX');
        assert.equal(a.body.data.items[0]?.slug, 'netflix');
        const b = await get('/api/v1/services?q=netflix.com');
        assert.equal(b.body.data.items[0]?.slug, 'netflix');
      });

      test('a query matching nothing is an empty page, not an error', async () => {
        const { status, body } = await get('/api/v1/services?q=zzzz-no-such-service');
        assert.equal(status, 200);
        assert.deepEqual(body.data.items, []);
        assert.equal(body.data.total, 0);
      });

      test('pages concatenate to exactly total items without duplicates', async () => {
        const first = await get('/api/v1/services?page_size=7');
        const total = first.body.data.total;
        assert.equal(total, t.catalog.entries.length);
        const seen: string[] = [];
        for (let page = 1; page <= Math.ceil(total / 7); page++) {
          const { body } = await get(`/api/v1/services?page_size=7&page=${page}`);
          assert.equal(body.data.total, total);
          seen.push(...body.data.items.map((i: { slug: string }) => i.slug));
        }
        assert.equal(seen.length, total);
        assert.equal(new Set(seen).size, total);
      });

      test('the default page size is 20', async () => {
        const { body } = await get('/api/v1/services');
        assert.equal(body.data.page_size, 20);
        assert.equal(body.data.items.length, Math.min(20, t.catalog.entries.length));
      });

      test('a page past the end is empty with the true total', async () => {
        const { status, body } = await get('/api/v1/services?page=9999');
        assert.equal(status, 200);
        assert.deepEqual(body.data.items, []);
        assert.equal(body.data.total, t.catalog.entries.length);
      });

      test('a category filter returns only that category', async () => {
        const { body } = await get('/api/v1/services?cat=streaming-video&page_size=100');
        assert.ok(body.data.items.length > 0);
        for (const item of body.data.items) assert.equal(item.category, 'streaming-video');
      });

      for (const [query, field] of [
        ['page_size=101', 'page_size'],
        ['page=0', 'page'],
        ['page=abc', 'page'],
        ['cat=not-a-category', 'cat'],
      ] as const) {
        test(`invalid ${query} is 400 INVALID_REQUEST naming ${field}`, async () => {
          const { status, body } = await get(`/api/v1/services?${query}`);
          assert.equal(status, 400);
          assert.equal(body.code, 'INVALID_REQUEST');
          assert.match(body.message, new RegExp(`querystring\\.${field}\\b`));
        });
      }
    });

    describe('GET /api/v1/services/{slug}', () => {
      test('returns the record with steps, traps, friction and sources', async () => {
        const { status, body } = await get('/api/v1/services/netflix');
        assert.equal(status, 200);
        const d = body.data;
        assert.equal(d.service, 'Netflix');
        assert.ok(d.steps.length >= 2);
        assert.deepEqual(
          d.steps.map((s: { order: number }) => s.order),
          d.steps.map((_: unknown, i: number) => i + 1),
        );
        assert.ok(Array.isArray(d.traps));
        assert.deepEqual(Object.keys(d.friction.axes).sort(), [
          'channel',
          'cost',
          'path',
          'retention',
          'timing',
          'verification',
        ]);
        assert.ok(d.sources.length >= 1);
        assert.equal(d.last_verified, null);
        assert.equal(d.link_status, null);
      });

      test('an unknown slug is 404 with a non-"0" code', async () => {
        const { status, body } = await get('/api/v1/services/nope');
        assert.equal(status, 404);
        assert.equal(body.code, 'NOT_FOUND');
      });
    });

    describe('answers built once', () => {
      test('a list page and a service show a new link check once the state is reloaded', async () => {
        const url = '/api/v1/services?q=spotify';
        const row = (body: { data: { items: { slug: string; last_verified: string | null }[] } }) =>
          body.data.items.find((i) => i.slug === 'spotify');
        assert.equal(row((await get(url)).body)?.last_verified, null);
        assert.equal(row((await get(url)).body)?.last_verified, null, 'the same page again');
        await recordCheckedOk(t.db, 'spotify', 'https://www.spotify.com/account', '2026-11-20T10:15:00.000Z');
        t.runtime.states.invalidate();
        const after = row((await get(url)).body);
        assert.equal(after?.last_verified, '2026-11-20T10:15:00.000Z');
        const one = await get('/api/v1/services/spotify');
        assert.equal(one.body.data.last_verified, '2026-11-20T10:15:00.000Z');
      });

      test('the same query with another page or size is another page', async () => {
        const a = await get('/api/v1/services?page_size=5');
        const b = await get('/api/v1/services?page_size=5&page=2');
        const c = await get('/api/v1/services?page_size=6');
        assert.equal(a.body.data.items.length, 5);
        assert.equal(b.body.data.page, 2);
        assert.notEqual(b.body.data.items[0].slug, a.body.data.items[0].slug);
        assert.equal(c.body.data.items.length, 6);
        assert.deepEqual(
          c.body.data.items.slice(0, 5).map((i: { slug: string }) => i.slug),
          a.body.data.items.map((i: { slug: string }) => i.slug),
        );
      });
    });

    describe('GET /api/v1/categories', () => {
      test('per-category counts sum to the number of services', async () => {
        const { body } = await get('/api/v1/categories');
        assert.equal(body.code, '0');
        assert.equal(body.data.categories.length, 20);
        const sum = body.data.categories.reduce((n: number, c: { count: number }) => n + c.count, 0);
        assert.equal(sum, t.catalog.entries.length);
      });

      test('a counted category lists exactly that many services', async () => {
        const { body } = await get('/api/v1/categories');
        const cat = body.data.categories.find((c: { count: number }) => c.count > 0);
        const list = await get(`/api/v1/services?cat=${cat.slug}&page_size=100`);
        assert.equal(list.body.data.total, cat.count);
      });
    });

    describe('errors outside the routes', () => {
      test('an unknown path under /api/v1 is a JSON 404', async () => {
        const res = await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' });
        assert.equal(res.statusCode, 404);
        assert.match(String(res.headers['content-type']), /application\/json/);
        assert.equal(res.json().code, 'NOT_FOUND');
      });

      test('a wrong method on a known path is 405 with Allow', async () => {
        const res = await t.app.inject({ method: 'DELETE', url: '/api/v1/services/netflix' });
        assert.equal(res.statusCode, 405);
        assert.equal(res.json().code, 'METHOD_NOT_ALLOWED');
        assert.match(String(res.headers.allow), /GET/);
      });
    });
  });
}
