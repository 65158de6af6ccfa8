import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { ENGINES, startAppOn } from '../../../test/helpers/engines.ts';
import { type LlmStub, startLlmStub } from '../../../test/helpers/llm-stub.ts';
import { createTestDatabase } from '../../../test/helpers/postgres.ts';

const guide = (t: TestApp, payload: unknown, ip = '198.51.100.20') =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/guide',
    payload: JSON.stringify(payload),
    headers: { 'content-type': 'application/json' },
    remoteAddress: ip,
  });

for (const engine of ENGINES) {
  describe(`offline guide on ${engine}`, () => {
    describe('POST /api/v1/guide with the offline writer', () => {
      let t: TestApp;
      before(async () => {
        t = await startAppOn(engine, { runtime: { worker: false } });
      });
      after(() => t.close());

      test('answers entry, steps, traps, explanation and source_url', async () => {
        const res = await guide(t, { slug: 'netflix' });
        assert.equal(res.statusCode, 200);
        const { code, data } = res.json();
        assert.equal(code, '0');
        assert.equal(data.entry, 'Netflix');
        assert.ok(data.steps.length >= 2);
        assert.ok(Array.isArray(data.traps));
        assert.ok(data.explanation.length > 20);
        assert.ok(new URL(data.source_url).hostname.endsWith('netflix.com'));
        assert.equal(data.tone, 'neutral');
        assert.equal(data.writer, 'template');
      });

      test('tones change the wording materially', async () => {
        const texts: Record<string, string> = {};
        for (const tone of ['neutral', 'reassuring', 'terse']) {
          const { data } = (await guide(t, { slug: 'planet-fitness', options: { tone } })).json();
          assert.equal(data.tone, tone);
          texts[tone] = data.explanation;
        }
        assert.notEqual(texts.neutral, texts.reassuring);
        assert.notEqual(texts.neutral, texts.terse);
        assert.ok(texts.terse!.length < texts.reassuring!.length / 2);
      });

      test('a locale is served in that language and the response says which', async () => {
        const de = (await guide(t, { slug: 'netflix', options: { locale: 'de-AT' } })).json().data;
        assert.equal(de.locale, 'de');
        assert.equal(de.steps_locale, 'en');
        const en = (await guide(t, { slug: 'netflix' })).json().data;
        assert.notEqual(de.explanation, en.explanation);
        const pt = (await guide(t, { slug: 'netflix', options: { locale: 'pt-BR' } })).json().data;
        assert.equal(pt.locale, 'en');
      });

      for (const [options, field] of [
        [{ tone: 'loud' }, 'body.options.tone'],
        [{ locale: 'not a locale!' }, 'body.options.locale'],
        [{ locale: 42 }, 'body.options.locale'],
      ] as const) {
        test(`invalid ${JSON.stringify(options)} is 400 naming ${field}`, async () => {
          const res = await guide(t, { slug: 'netflix', options });
          assert.equal(res.statusCode, 400);
          assert.equal(res.json().code, 'INVALID_REQUEST');
          assert.ok(res.json().message.includes(field), res.json().message);
        });
      }

      test('an unknown slug is 404', async () => {
        const res = await guide(t, { slug: 'nope' });
        assert.equal(res.statusCode, 404);
        assert.equal(res.json().code, 'NOT_FOUND');
      });

      test('20 per minute per client IP, then 429 with Retry-After and RateLimit headers', async () => {
        for (let i = 0; i < 20; i++)
          assert.equal((await guide(t, { slug: 'netflix' }, '198.51.100.99')).statusCode, 200);
        const refused = await guide(t, { slug: 'netflix' }, '198.51.100.99');
        assert.equal(refused.statusCode, 429);
        assert.equal(refused.json().code, 'RATE_LIMITED');
        assert.ok(Number(refused.headers['retry-after']) >= 1);
        assert.equal(refused.headers['ratelimit-limit'], '20');
        assert.equal(refused.headers['ratelimit-policy'], '20;w=60');
      });
    });
  });
}

describe('POST /api/v1/guide with a model (OpenAI-compatible stub)', () => {
  let stub: LlmStub;
  let t: TestApp;
  const KEY = 'sk-test-SENTINEL-4c1d';
  before(async () => {
    stub = await startLlmStub();
    t = await startTestApp({
      env: {
        LLM_PROVIDER: 'openai',
        LLM_BASE_URL: stub.url,
        LLM_API_KEY: KEY,
        LLM_MODEL: 'stub-1',
        LLM_TIMEOUT_MS: '1500',
      },
      runtime: { worker: false },
    });
  });
  after(async () => {
    await t.close();
    await stub.close();
  });

  let ip = 0;
  const fresh = () => `203.0.113.${++ip}`;

  test('a guide written by the model keeps the record’s steps and links', async () => {
    stub.mode = 'answer';
    const res = await guide(t, { slug: 'netflix', options: { tone: 'terse' } }, fresh());
    assert.equal(res.statusCode, 200);
    const { data } = res.json();
    assert.equal(data.writer, 'llm');
    assert.equal(data.entry, 'Netflix');
    const record = (await t.app.inject({ method: 'GET', url: '/api/v1/services/netflix' })).json().data;
    assert.equal(data.steps.length, record.steps.length);
    assert.equal(stub.requests.at(-1)?.headers.authorization, `Bearer ${KEY}`);
  });

  test('a repeated request is served from the cache; another tone asks the model again', async () => {
    stub.mode = 'answer';
    const before = stub.requests.length;
    await guide(t, { slug: 'spotify', options: { tone: 'reassuring', locale: 'fr' } }, fresh());
    await guide(t, { slug: 'spotify', options: { tone: 'reassuring', locale: 'fr' } }, fresh());
    assert.equal(stub.requests.length, before + 1);
    await guide(t, { slug: 'spotify', options: { tone: 'neutral', locale: 'fr' } }, fresh());
    assert.equal(stub.requests.length, before + 2);
  });

  test('identical requests in flight share one model call', async () => {
    stub.mode = 'answer';
    const before = stub.requests.length;
    const all = await Promise.all([1, 2, 3].map(() => guide(t, { slug: 'hulu' }, fresh())));
    for (const r of all) assert.equal(r.statusCode, 200);
    assert.equal(stub.requests.length, before + 1);
  });

  for (const [mode, retryAfter] of [
    ['fail500', '30'],
    ['rate_limited', '7'],
    ['stall', '30'],
    ['garbage', '30'],
    ['wrong_shape', '30'],
    ['extra_url', '30'],
  ] as const) {
    test(`a model that answers ${mode} gives 503 LLM_UNAVAILABLE with Retry-After, never a half answer`, async () => {
      stub.mode = mode;
      const started = Date.now();
      const res = await guide(t, { slug: 'disney-plus', options: { tone: 'terse', locale: 'es' } }, fresh());
      assert.equal(res.statusCode, 503);
      assert.deepEqual(Object.keys(res.json()).sort(), ['code', 'message']);
      assert.equal(res.json().code, 'LLM_UNAVAILABLE');
      assert.equal(res.headers['retry-after'], retryAfter);
      assert.ok(Date.now() - started < 3000);
    });
  }

  test('the failed answers were not cached and the key never reached a log line', async () => {
    stub.mode = 'answer';
    const res = await guide(t, { slug: 'disney-plus', options: { tone: 'terse', locale: 'es' } }, fresh());
    assert.equal(res.statusCode, 200);
    assert.ok(!t.logs.join('\n').includes(KEY));
  });
});

describe('guide rate limit across instances on PostgreSQL', () => {
  test('two instances together allow exactly 20 per minute for one client', async () => {
    const pg = await createTestDatabase();
    const a = await startTestApp({ databaseUrl: pg.url, runtime: { worker: false } });
    const b = await startTestApp({ databaseUrl: pg.url, runtime: { worker: false } });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 26; i++)
        codes.push((await guide(i % 2 ? a : b, { slug: 'netflix' }, '192.0.2.44')).statusCode);
      assert.equal(codes.filter((c) => c === 200).length, 20);
      assert.equal(codes.filter((c) => c === 429).length, 6);
    } finally {
      await a.close();
      await b.close();
      await pg.drop();
    }
  });
});
