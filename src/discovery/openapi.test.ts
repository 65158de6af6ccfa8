import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { validate } from '@readme/openapi-parser';
import { startTestApp, type TestApp } from '../../test/helpers/app.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

describe('OpenAPI description', () => {
  test('/.well-known/openapi.json is a valid OpenAPI 3.1 document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/.well-known/openapi.json' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    const doc = res.json();
    assert.equal(doc.openapi, '3.1.0');
    const result = await validate(structuredClone(doc));
    assert.equal(result.valid, true, result.valid ? '' : JSON.stringify(result.errors, null, 2).slice(0, 2000));
  });

  test('it describes every public route and nothing internal', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/.well-known/openapi.json' })).json();
    const paths = Object.keys(doc.paths);
    for (const p of ['/api/v1/services', '/api/v1/services/{slug}', '/api/v1/categories'])
      assert.ok(paths.includes(p), p);
    assert.ok(!paths.some((p) => p.startsWith('/docs') || p.startsWith('/.well-known') || p.includes('healthz')));
    const list = doc.paths['/api/v1/services'].get;
    const names = list.parameters.map((p: { name: string }) => p.name).sort();
    assert.deepEqual(names, ['cat', 'page', 'page_size', 'q']);
    const pageSize = list.parameters.find((p: { name: string }) => p.name === 'page_size');
    assert.equal(pageSize.schema.maximum, 100);
  });

  test('the schema it publishes is the one the route validates with', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/.well-known/openapi.json' })).json();
    const cat = doc.paths['/api/v1/services'].get.parameters.find((p: { name: string }) => p.name === 'cat');
    const published: string[] = cat.schema.enum;
    // a value the document allows is accepted, one it does not is refused
    const okRes = await t.app.inject({ method: 'GET', url: `/api/v1/services?cat=${published[0]}` });
    assert.equal(okRes.statusCode, 200);
    const bad = await t.app.inject({ method: 'GET', url: '/api/v1/services?cat=unlisted' });
    assert.equal(bad.statusCode, 400);
  });
});

describe('API reference page', () => {
  test('/docs renders the operations and error codes as HTML', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /text\/html/);
    for (const s of [
      '/api/v1/services/{slug}',
      '/api/v1/categories',
      'NOT_FOUND',
      'RATE_LIMITED',
      'page_size',
      '/agent/auth/claim/complete',
      'otp_invalid',
      'requested_credential_type',
    ]) {
      assert.ok(res.body.includes(s), s);
    }
    assert.doesNotMatch(res.body, /<script/);
  });
});
