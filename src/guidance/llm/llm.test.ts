import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { echoRewrite, FOREIGN_URL, type LlmStub, startLlmStub } from '../../../test/helpers/llm-stub.ts';
import { type CatalogEntry, loadCatalog } from '../../catalog/load.ts';
import { writeGuideWithLlm } from '../guide/llm-writer.ts';
import { Guide } from '../guide/schema.ts';
import { parseRetryAfter } from './http.ts';
import { createLlmClient, type LlmClient } from './index.ts';

const KEY = 'sk-test-5ecret-key-never-echo-me';
let netflix: CatalogEntry;
let planet: CatalogEntry;

before(async () => {
  const catalog = await loadCatalog();
  netflix = catalog.bySlug.get('netflix')!;
  planet = catalog.bySlug.get('planet-fitness')!;
});

const write = (client: LlmClient, entry: CatalogEntry, timeoutMs = 2000, locale = 'de-AT') =>
  writeGuideWithLlm(client, entry.record, entry.friction, { tone: 'reassuring', locale }, timeoutMs);

describe('openai-compatible client and the llm guide writer', () => {
  let stub: LlmStub;
  let client: LlmClient;
  before(async () => {
    stub = await startLlmStub();
    client = createLlmClient({
      provider: 'openai',
      apiKey: KEY,
      baseUrl: stub.url,
      model: 'stub-model',
      timeoutMs: 2000,
    })!;
  });
  after(() => stub.close());
  beforeEach(() => {
    stub.mode = 'answer';
    stub.answer = undefined;
    stub.requests.length = 0;
  });

  test('a valid rewrite becomes an llm guide whose links, order and severities come from the record', async () => {
    const res = await write(client, netflix);
    assert.ok(res.ok, JSON.stringify(res));
    const g = res.guide;
    assert.ok(Guide.safeParse(g).success);
    assert.equal(g.writer, 'llm');
    assert.equal(g.entry, 'Netflix');
    assert.equal(g.locale, 'de-AT');
    assert.equal(g.steps_locale, 'de-AT');
    assert.equal(g.tone, 'reassuring');
    assert.equal(g.source_url, 'https://help.netflix.com/en/node/407');
    const r = netflix.record;
    assert.deepEqual(
      g.steps.map((s) => [s.order, s.title, s.url]),
      r.steps.map((s, i) => [i + 1, `[de-AT] ${s.title}`, s.url ?? null]),
    );
    assert.deepEqual(
      g.traps.map((t) => t.severity),
      r.traps.map((t) => t.severity),
    );
  });

  test('the request carries the model, JSON mode, the key as Bearer and only the record facts', async () => {
    await write(client, netflix);
    const [req] = stub.requests;
    assert.ok(req);
    assert.equal(req.method, 'POST');
    assert.equal(req.path, '/v1/chat/completions');
    assert.equal(req.headers.authorization, `Bearer ${KEY}`);
    assert.equal(req.body.model, 'stub-model');
    assert.deepEqual(req.body.response_format, { type: 'json_object' });
    const [system, user] = req.body.messages;
    assert.equal(system.role, 'system');
    assert.match(system.content, /Austrian German \(de-AT\)/);
    assert.ok(system.content.includes(`exactly ${netflix.record.steps.length} items`));
    assert.match(system.content, /remind the reader to keep the confirmation/);
    const facts = JSON.parse(user.content);
    assert.deepEqual(
      facts.steps.map((s: { title: string }) => s.title),
      netflix.record.steps.map((s) => s.title),
    );
    assert.equal(facts.difficulty.tier, netflix.friction.tier);
    assert.doesNotMatch(user.content, /https?:\/\//, 'links stay out of the prompt');
    assert.ok(!JSON.stringify(req.body).includes(KEY), 'the key travels in the header only');
  });

  test('without a key no Authorization header is sent (local servers)', async () => {
    const keyless = createLlmClient({ provider: 'openai', baseUrl: stub.url, model: 'm', timeoutMs: 2000 })!;
    assert.ok((await write(keyless, netflix)).ok);
    assert.equal(stub.requests[0]!.headers.authorization, undefined);
  });

  test('a 500 from the provider is http_error with the default retry hint', async () => {
    stub.mode = 'fail500';
    assert.deepEqual(await write(client, netflix), {
      ok: false,
      reason: 'http_error',
      status: 500,
      retryAfterSeconds: 30,
    });
  });

  test('a 429 is rate_limited and passes on the provider Retry-After', async () => {
    stub.mode = 'rate_limited';
    assert.deepEqual(await write(client, netflix), {
      ok: false,
      reason: 'rate_limited',
      status: 429,
      retryAfterSeconds: 7,
    });
  });

  test('a provider that never answers times out within the configured timeout', async () => {
    stub.mode = 'stall';
    const started = performance.now();
    const res = await write(client, netflix, 300);
    const elapsed = performance.now() - started;
    assert.deepEqual(res, { ok: false, reason: 'timeout', retryAfterSeconds: 30 });
    assert.ok(elapsed >= 250 && elapsed < 1500, `took ${elapsed} ms`);
  });

  test('a caller giving up early is not reported as a provider timeout', async () => {
    stub.mode = 'stall';
    const res = await writeGuideWithLlm(
      client,
      netflix.record,
      netflix.friction,
      { tone: 'neutral' },
      5000,
      AbortSignal.timeout(50),
    );
    assert.deepEqual(res, { ok: false, reason: 'network', retryAfterSeconds: 30 });
  });

  test('content that is not JSON is bad_response', async () => {
    stub.mode = 'garbage';
    assert.deepEqual(await write(client, netflix), { ok: false, reason: 'bad_response', retryAfterSeconds: 30 });
  });

  test('JSON of the wrong shape is bad_response', async () => {
    stub.mode = 'wrong_shape';
    assert.deepEqual(await write(client, netflix), { ok: false, reason: 'bad_response', retryAfterSeconds: 30 });
  });

  test('a URL that is not in the record is bad_response', async () => {
    stub.mode = 'extra_url';
    assert.deepEqual(await write(client, netflix), { ok: false, reason: 'bad_response', retryAfterSeconds: 30 });
  });

  test('a URL the record does contain is allowed in the text', async () => {
    stub.answer = (body) => {
      const a = echoRewrite(body);
      return { ...a, explanation: `${a.explanation} Start at https://www.netflix.com/cancelplan.` };
    };
    assert.ok((await write(client, netflix)).ok);
  });

  test('a missing step, an extra trap or an unknown field is bad_response', async () => {
    const bad = [
      (a: ReturnType<typeof echoRewrite>) => ({ ...a, steps: a.steps.slice(1) }),
      (a: ReturnType<typeof echoRewrite>) => ({ ...a, traps: [...a.traps, a.traps[0]] }),
      (a: ReturnType<typeof echoRewrite>) => ({ ...a, url: 'x' }),
      (a: ReturnType<typeof echoRewrite>) => ({ ...a, explanation: '' }),
    ];
    for (const change of bad) {
      stub.answer = (body) => change(echoRewrite(body));
      const res = await write(client, planet);
      assert.equal(res.ok, false);
      assert.equal(!res.ok && res.reason, 'bad_response');
    }
  });

  test('an unreachable provider is network', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const dead = createLlmClient({
      provider: 'openai',
      apiKey: KEY,
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: 'm',
      timeoutMs: 2000,
    })!;
    assert.deepEqual(await write(dead, netflix), { ok: false, reason: 'network', retryAfterSeconds: 30 });
  });

  test('the API key appears in no result, whatever the outcome', async () => {
    for (const mode of ['answer', 'fail500', 'rate_limited', 'garbage', 'wrong_shape', 'extra_url'] as const) {
      stub.mode = mode;
      const viaWriter = await write(client, netflix);
      const direct = await client.complete({ system: 's', user: '{}', timeoutMs: 2000 });
      assert.ok(!JSON.stringify([viaWriter, direct]).includes(KEY), mode);
    }
    stub.mode = 'stall';
    assert.ok(!JSON.stringify(await write(client, netflix, 200)).includes(KEY));
  });

  test('the client returns the message text as is', async () => {
    stub.answer = () => ({ hello: 'world' });
    assert.deepEqual(await client.complete({ system: 's', user: 'u', timeoutMs: 2000 }), {
      ok: true,
      text: '{"hello":"world"}',
    });
  });
});

describe('anthropic client', () => {
  type Seen = { path: string; headers: IncomingHttpHeaders; body: Record<string, unknown> };
  const seen: Seen[] = [];
  let reply: (body: Record<string, unknown>) => { status: number; json: unknown };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      const body = JSON.parse(raw);
      seen.push({ path: req.url ?? '', headers: req.headers, body });
      const out = req.url === '/v1/messages' ? reply(body) : { status: 404, json: {} };
      res.writeHead(out.status, { 'content-type': 'application/json' }).end(JSON.stringify(out.json));
    });
  });
  let client: LlmClient;
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = createLlmClient({
      provider: 'anthropic',
      apiKey: KEY,
      baseUrl: base,
      model: 'claude-test',
      timeoutMs: 2000,
    })!;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  test('sends x-api-key and anthropic-version to /v1/messages and joins the text blocks', async () => {
    reply = (body) => {
      const text = JSON.stringify(echoRewrite(body));
      // some models wrap JSON in a code fence; the writer tolerates that
      const half = Math.floor(text.length / 2);
      return {
        status: 200,
        json: {
          type: 'message',
          content: [
            { type: 'text', text: `\`\`\`json\n${text.slice(0, half)}` },
            { type: 'text', text: `${text.slice(half)}\n\`\`\`` },
          ],
          stop_reason: 'end_turn',
        },
      };
    };
    const res = await write(client, netflix, 2000, 'es');
    assert.ok(res.ok, JSON.stringify(res));
    assert.equal(res.guide.locale, 'es');
    const req = seen.at(-1)!;
    assert.equal(req.path, '/v1/messages');
    assert.equal(req.headers['x-api-key'], KEY);
    assert.equal(req.headers['anthropic-version'], '2023-06-01');
    assert.equal(req.headers.authorization, undefined);
    assert.equal(req.body.model, 'claude-test');
    assert.equal(typeof req.body.max_tokens, 'number');
    assert.match(String(req.body.system), /Spanish \(es\)/);
  });

  test('an overloaded provider (529) is http_error; a cut-off answer is bad_response', async () => {
    reply = () => ({ status: 529, json: { type: 'error', error: { type: 'overloaded_error' } } });
    assert.deepEqual(await write(client, netflix), {
      ok: false,
      reason: 'http_error',
      status: 529,
      retryAfterSeconds: 30,
    });
    reply = () => ({
      status: 200,
      json: { content: [{ type: 'text', text: '{"entry":' }], stop_reason: 'max_tokens' },
    });
    const res = await write(client, netflix);
    assert.equal(!res.ok && res.reason, 'bad_response');
    assert.ok(!JSON.stringify(res).includes(KEY));
  });
});

describe('llm configuration and retry hints', () => {
  test('provider none gives no client, so guides fall back to the template writer', () => {
    assert.equal(createLlmClient({ provider: 'none', baseUrl: 'https://x.example', model: 'm', timeoutMs: 1 }), null);
  });

  test('Retry-After is read as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('7', now), 7);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now), 60);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter(null, now), undefined);
  });
});

// FOREIGN_URL is what 'extra_url' injects; it must really be foreign to the catalog record.
test('the stub foreign URL is not in the netflix record', () => {
  assert.ok(!JSON.stringify(netflix.record).includes(FOREIGN_URL));
});
