import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { startTestApp, type TestApp } from '../../test/helpers/app.ts';
import { ok } from './envelope.ts';
import { ApiError } from './errors.ts';

// A POST route shaped like the public API's, added to the real app for these tests.
let t: TestApp;
before(async () => {
  t = await startTestApp({
    env: { TRUST_PROXY: '127.0.0.1' },
    setup(app) {
      app.post(
        '/api/v1/_echo',
        {
          schema: {
            body: z.object({ slug: z.string().min(1), options: z.object({ tone: z.enum(['a', 'b']) }).optional() }),
          },
        },
        async (req) => ok({ slug: (req.body as { slug: string }).slug }),
      );
      app.get('/api/v1/_boom', async () => {
        throw new Error('secret internal detail at /srv/db password=hunter2');
      });
      app.get('/api/v1/_ip', async (req) => ok({ ip: req.ip }));
      app.get('/api/v1/_busy', async () => {
        throw new ApiError('UNAVAILABLE', 'busy', { 'retry-after': '7' });
      });
      app.get('/_busy', async () => {
        throw new ApiError('UNAVAILABLE', 'busy', { 'retry-after': '7' });
      });
    },
  });
});
after(() => t.close());

const post = (payload: string, contentType = 'application/json') =>
  t.app.inject({ method: 'POST', url: '/api/v1/_echo', payload, headers: { 'content-type': contentType } });

describe('request bodies', () => {
  test('a valid JSON body reaches the handler', async () => {
    const res = await post('{"slug":"netflix"}');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { code: '0', data: { slug: 'netflix' }, message: '' });
  });

  test('malformed JSON is 400 INVALID_REQUEST in the envelope', async () => {
    const res = await post('{"slug":');
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'INVALID_REQUEST');
  });

  test('a failed validation names the field', async () => {
    const res = await post('{"slug":"x","options":{"tone":"loud"}}');
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'INVALID_REQUEST');
    assert.match(res.json().message, /body\.options\.tone/);
  });

  test('a missing required field is named', async () => {
    const res = await post('{}');
    assert.equal(res.json().code, 'INVALID_REQUEST');
    assert.match(res.json().message, /body\.slug/);
  });

  test('a text/plain body is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await post('{"slug":"netflix"}', 'text/plain');
    assert.equal(res.statusCode, 415);
    assert.equal(res.json().code, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('a form body is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await post('slug=netflix', 'application/x-www-form-urlencoded');
    assert.equal(res.statusCode, 415);
  });

  test('a body over 64 KiB is 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await post(JSON.stringify({ slug: 'x'.repeat(64 * 1024) }));
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().code, 'PAYLOAD_TOO_LARGE');
  });
});

describe('failures and headers', () => {
  test('a path whose percent-escapes are not UTF-8 is 400 INVALID_REQUEST in the envelope, not the router’s own body', async () => {
    for (const url of ['/api/v1/services/%C3%28', '//%C3%28', '/blog/%FF']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 400, url);
      assert.equal(res.json().code, 'INVALID_REQUEST', url);
      assert.doesNotMatch(res.body, /FST_/, url);
    }
  });

  test('an unexpected error is 500 INTERNAL without internals, and is logged', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/_boom' });
    assert.equal(res.statusCode, 500);
    assert.equal(res.json().code, 'INTERNAL');
    assert.doesNotMatch(res.body, /hunter2|\/srv\/db|at .*\.ts/);
    assert.match(String(res.headers['content-type']), /application\/json/);
    assert.ok(t.logs.some((l) => l.includes('unhandled error')));
  });

  test('API responses carry the short API security header set', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/categories' });
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'");
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['strict-transport-security'], undefined, 'no HSTS on plain http');
    // the headers the OWASP REST cheat sheet lists as mattering only for HTML
    assert.equal(res.headers['referrer-policy'], undefined);
    assert.equal(res.headers['permissions-policy'], undefined);
  });

  test('API errors carry the same headers as API answers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/nope' });
    assert.equal(res.statusCode, 404);
    assert.equal(res.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'");
  });

  test('over https, API responses add HSTS', async () => {
    const https = await startTestApp({ env: { BASE_URL: 'https://optout.example', LOG_LEVEL: 'silent' } });
    try {
      const res = await https.app.inject({ method: 'GET', url: '/api/v1/categories' });
      assert.match(String(res.headers['strict-transport-security']), /^max-age=\d+/);
      assert.equal(res.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'");
    } finally {
      await https.close();
    }
  });

  test('the public API answers CORS preflights for any origin', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/services',
      headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' },
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.match(String(res.headers['access-control-allow-methods']), /\bPOST\b/);
    assert.equal(res.headers['access-control-allow-headers'], 'Content-Type');
    assert.equal(res.headers['access-control-max-age'], '86400');
    assert.equal(res.headers['content-length'], '0');
  });

  test('an OPTIONS request without Origin and a requested method is not a preflight: 400', async () => {
    const res = await t.app.inject({ method: 'OPTIONS', url: '/api/v1/services' });
    assert.equal(res.statusCode, 400);
  });

  test('API answers and API errors may be read by any origin, without credentials', async () => {
    for (const url of ['/api/v1/categories', '/api/v1/nope']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { origin: 'https://example.org' } });
      assert.equal(res.headers['access-control-allow-origin'], '*', url);
      assert.equal(res.headers['access-control-allow-credentials'], undefined, url);
      // nothing beyond the safelisted headers to expose on these
      assert.equal(res.headers['access-control-expose-headers'], undefined, url);
    }
  });

  test('an API answer with Retry-After exposes it to other origins; one outside the API has no CORS at all', async () => {
    const api = await t.app.inject({ method: 'GET', url: '/api/v1/_busy', headers: { origin: 'https://example.org' } });
    assert.equal(api.statusCode, 503);
    assert.equal(api.headers['retry-after'], '7');
    assert.match(String(api.headers['access-control-expose-headers']), /\bRetry-After\b/);
    const page = await t.app.inject({ method: 'GET', url: '/_busy' });
    assert.equal(page.headers['retry-after'], '7');
    assert.equal(page.headers['access-control-expose-headers'], undefined);
  });

  test('pages carry no CORS headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    assert.equal(res.headers['access-control-allow-origin'], undefined);
  });

  test('X-Forwarded-For is believed only from a trusted proxy', async () => {
    const trusted = await t.app.inject({
      method: 'GET',
      url: '/api/v1/_ip',
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    assert.equal(trusted.json().data.ip, '203.0.113.7');
    const untrusted = await t.app.inject({
      method: 'GET',
      url: '/api/v1/_ip',
      remoteAddress: '198.51.100.2',
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    assert.equal(untrusted.json().data.ip, '198.51.100.2');
  });
});
