import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { startTestApp, type TestApp } from '../../test/helpers/app.ts';
import { PROVIDERS } from '../mailbox/providers.ts';

const BASE = 'https://optout.example';
let t: TestApp;
before(async () => {
  t = await startTestApp({ env: { BASE_URL: BASE, LOG_LEVEL: 'silent' }, runtime: { worker: false } });
});
after(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

/** Pages keep the CSP: no inline scripts, no inline event handlers, no style attributes. */
function assertNoInlineCode(body: string) {
  assert.doesNotMatch(body, /<script(?![^>]*\ssrc=)[^>]*>/, 'inline <script>');
  assert.doesNotMatch(body, /\son[a-z]+\s*=/i, 'inline event handler');
  assert.doesNotMatch(body, /\sstyle\s*=/i, 'style attribute');
  assert.doesNotMatch(body, /<style/i, '<style> element');
}

describe('the tool page /', () => {
  test('is HTML with the form, every provider and its app-password help', async () => {
    const res = await get('/');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
    for (const p of PROVIDERS) {
      assert.ok(res.body.includes(`value="${p.id}"`), p.id);
      if (p.appPasswordUrl) assert.ok(res.body.includes(`href="${p.appPasswordUrl.replaceAll('&', '&amp;')}"`), p.id);
    }
    assert.match(res.body, /value="custom"/);
    assert.match(res.body, /<input id="password" name="password" type="password" autocomplete="off"/);
    assert.match(
      res.body,
      /kept only in our server’s memory, for an hour at most and 10 minutes once you leave, then wiped; it is never stored or logged/,
    );
    assert.match(res.body, /id="oauth-slot" hidden/);
    assert.match(res.body, /<progress id="progress"/);
    assert.match(res.body, /aria-live="polite"/);
    assert.match(res.body, /<noscript>/);
    // Without the script nothing can submit the password anywhere.
    assert.match(res.body, /<button type="submit" class="button" id="scan-button" disabled>/);
    assertNoInlineCode(res.body);
  });

  test('has one module script, a canonical address and Open Graph tags', async () => {
    const { body } = await get('/');
    assert.equal(body.match(/<script /g)?.length, 1);
    assert.match(body, /<script type="module" src="\/assets\/tool\.js\?v=[0-9a-f]{12}"><\/script>/);
    assert.match(body, new RegExp(`<link rel="canonical" href="${BASE}/">`));
    assert.match(body, /<meta property="og:title" content="[^"]+">/);
    assert.match(body, new RegExp(`<meta property="og:url" content="${BASE}/">`));
  });

  test('carries a CSP without unsafe-inline', async () => {
    const res = await get('/');
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
  });
});

describe('not found', () => {
  test('an unknown page path is an HTML page', async () => {
    for (const url of ['/nope', '/services/nope', '/blog/nope/', '/assets/nope.js', '/deep/er/path?x=1']) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, url);
      assert.match(String(res.headers['content-type']), /^text\/html/, url);
      assert.match(res.body, /<h1>Page not found<\/h1>/, url);
    }
  });

  test('API, channel and discovery paths keep the JSON envelope', async () => {
    for (const url of ['/api/v1/nope', '/api/nope', '/.well-known/nope', '/agent/nope', '/mcp/nope', '/ws/nope']) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, url);
      assert.match(String(res.headers['content-type']), /application\/json/, url);
      assert.equal(res.json().code, 'NOT_FOUND', url);
    }
  });

  test('a POST to an unknown page path stays JSON', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/nope', payload: {} });
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['content-type']), /application\/json/);
  });
});

describe('assets', () => {
  test('scripts are JavaScript with no types or imports left, under 50 KB gzipped', async () => {
    for (const name of ['tool.js', 'service.js']) {
      const res = await get(`/assets/${name}`, { 'accept-encoding': 'gzip' });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/javascript/);
      assert.equal(res.headers['content-encoding'], 'gzip');
      assert.ok(res.rawPayload.length < 50 * 1024, `${name}: ${res.rawPayload.length} bytes gzipped`);
      const js = gunzipSync(res.rawPayload).toString();
      assert.doesNotMatch(js, /^\s*(import|export)\b/m);
      assert.doesNotMatch(js, /:\s*(string|number|boolean)\b[,)=;]/);
    }
  });

  test('a versioned URL is cached for a year, the bare one is revalidated by ETag', async () => {
    const { body } = await get('/');
    const url = /src="(\/assets\/tool\.js\?v=[0-9a-f]+)"/.exec(body)![1]!;
    const versioned = await get(url);
    assert.match(String(versioned.headers['cache-control']), /max-age=31536000, immutable/);
    const bare = await get('/assets/tool.js');
    assert.match(String(bare.headers['cache-control']), /must-revalidate/);
    const again = await get('/assets/tool.js', { 'if-none-match': String(bare.headers.etag) });
    assert.equal(again.statusCode, 304);
  });

  test('/favicon.ico points at the icon', async () => {
    const res = await get('/favicon.ico');
    assert.equal(res.statusCode, 301);
    assert.match(String(res.headers.location), /^\/assets\/favicon\.svg\?v=/);
    assert.match(String((await get(String(res.headers.location))).headers['content-type']), /^image\/svg\+xml/);
  });

  test('the stylesheet has light and dark schemes', async () => {
    const res = await get('/assets/site.css');
    assert.match(String(res.headers['content-type']), /^text\/css/);
    assert.match(res.body, /prefers-color-scheme: dark/);
  });
});

describe('robots and sitemap', () => {
  test('robots.txt allows everything and names the sitemap', async () => {
    const res = await get('/robots.txt');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    assert.match(res.body, /^User-agent: \*$/m);
    assert.match(res.body, /^Allow: \/$/m);
    assert.match(res.body, new RegExp(`^Sitemap: ${BASE}/sitemap.xml$`, 'm'));
  });
});
