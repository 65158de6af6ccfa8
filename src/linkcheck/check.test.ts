import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts';
import { createOutboundGuard, type LookupFn, type OutboundGuard } from '../outbound/guard.ts';
import { checkLink, type LinkCheckOptions, type LinkCheckResult } from './check.ts';

type T = { after(fn: () => unknown): void };
type Route = (res: ServerResponse, host: string) => void;

// Extra names for the one loopback server, so a test can play a second site or a subdomain.
const NAMES = new Set(['mirror.test', 'help.example.test', 'example.test']);
const lookup: LookupFn = async (h) => {
  if (NAMES.has(h)) return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${h}`), { code: 'ENOTFOUND' });
};

type Site = { s: HttpTarget; guard: OutboundGuard; url: (path: string) => string };

/** A loopback site answering `routes` by path; unknown paths are 404. */
async function site(t: T, routes: Record<string, Route>): Promise<Site> {
  const s = await startHttpTarget((req, res) => {
    const route = routes[req.url ?? ''];
    if (route) route(res, req.headers.host ?? '');
    else res.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not Found</title>');
  });
  const guard = createOutboundGuard({ allowHosts: [...NAMES, '127.0.0.1'].map((h) => `${h}:${s.port}`), lookup });
  t.after(async () => {
    await guard.dispatcher.destroy();
    await s.close();
  });
  return { s, guard, url: (path) => `${s.origin}${path}` };
}

const html =
  (body: string, title = 'Cancel your membership') =>
  (res: ServerResponse) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head>
    <title>${title}</title><script>var now = ${Math.random()};</script></head><body>${body}</body></html>`);
const redirect = (status: number, location: string) => (res: ServerResponse) =>
  res.writeHead(status, { location }).end();

function check(x: Site, path: string, opts: LinkCheckOptions = {}, previousHash?: string | null) {
  return checkLink(x.guard, { url: x.url(path), officialDomains: ['127.0.0.1'], previousHash }, opts);
}
const brief = (r: LinkCheckResult) => ({ outcome: r.outcome, http_status: r.http_status, detail: r.detail });

test('a 200 page is ok, fetched with GET and the linkcheck User-Agent', async (t) => {
  const x = await site(t, { '/account/cancel': html('<h1>Cancel</h1><p>Open Account, then Cancel.</p>') });
  const r = await check(x, '/account/cancel', { userAgent: 'optout-linkcheck/1.0 (+https://optout.test/docs)' });
  assert.deepEqual(brief(r), { outcome: 'ok', http_status: 200, detail: 'http 200' });
  assert.equal(r.final_url, x.url('/account/cancel'));
  assert.deepEqual(r.redirects, []);
  assert.match(r.content_hash ?? '', /^[0-9a-f]{64}$/);
  assert.equal(r.content_changed, null, 'no previous hash, nothing to compare');
  assert.ok(r.duration_ms >= 0 && r.duration_ms < 2000);
  assert.equal(x.s.seen[0]?.method, 'GET');
  assert.equal(x.s.seen[0]?.headers['user-agent'], 'optout-linkcheck/1.0 (+https://optout.test/docs)');
});

test('a redirect to another path is moved; one that keeps the path (trailing slash) is ok', async (t) => {
  const x = await site(t, {
    '/old': redirect(301, '/help/cancel'),
    '/help/cancel': html('<p>Steps</p>'),
    '/faq': redirect(308, '/faq/'),
    '/faq/': html('<p>FAQ</p>'),
  });
  const moved = await check(x, '/old');
  assert.deepEqual(brief(moved), { outcome: 'moved', http_status: 200, detail: 'http 200 at /help/cancel' });
  assert.equal(moved.final_url, x.url('/help/cancel'));
  assert.deepEqual(moved.redirects, [{ url: x.url('/old'), status: 301 }]);
  assert.equal((await check(x, '/faq')).outcome, 'ok');
});

test('a redirect chain is recorded in order; a chain that leaves the official host and returns is fine', async (t) => {
  const x = await site(t, {
    '/a': redirect(302, '/b'),
    '/b': (res) => res.writeHead(307, { location: `http://mirror.test:${x.s.port}/c` }).end(),
    '/c': (res) => res.writeHead(303, { location: `http://help.example.test:${x.s.port}/d` }).end(),
    '/d': html('<p>Done</p>'),
  });
  // Official domains are compared in canonical form: case and a trailing root dot do not matter.
  const r = await checkLink(x.guard, { url: x.url('/a'), officialDomains: ['Example.TEST.', '127.0.0.1'] });
  assert.equal(r.outcome, 'moved');
  assert.equal(r.final_url, `http://help.example.test:${x.s.port}/d`, 'subdomain of an official domain');
  assert.deepEqual(r.redirects, [
    { url: x.url('/a'), status: 302 },
    { url: x.url('/b'), status: 307 },
    { url: `http://mirror.test:${x.s.port}/c`, status: 303 },
  ]);
});

test('404, 410, 500 and 503 are broken; so is a redirect loop', async (t) => {
  const statuses = [404, 410, 500, 503];
  const routes: Record<string, Route> = { '/loop': redirect(302, '/loop') };
  for (const s of statuses) routes[`/${s}`] = (res) => res.writeHead(s).end('<h1>error</h1>');
  const x = await site(t, routes);
  for (const s of statuses) {
    const r = await check(x, `/${s}`);
    assert.deepEqual(brief(r), { outcome: 'broken', http_status: s, detail: `http ${s}` });
    assert.equal(r.content_hash, null, 'an error page has no content to track');
  }
  const loop = await check(x, '/loop', { maxRedirects: 2 });
  assert.deepEqual(brief(loop), {
    outcome: 'broken',
    http_status: null,
    detail: 'too many redirects: more than 2 redirects',
  });
  assert.equal(loop.redirects.length, 3);
});

test('401, 403 and 429 are blocked (bot protection), not broken', async (t) => {
  const statuses = [401, 403, 429];
  const routes: Record<string, Route> = {};
  for (const s of statuses) routes[`/${s}`] = (res) => res.writeHead(s).end('<title>Access denied</title>');
  const x = await site(t, routes);
  for (const s of statuses) {
    assert.deepEqual(brief(await check(x, `/${s}`)), { outcome: 'blocked', http_status: s, detail: `http ${s}` });
  }
});

test('a 200 whose title or first heading says not found is soft_404, in en, de, fr and es', async (t) => {
  const x = await site(t, {
    '/en': html('<p>Try search.</p>', 'Page Not Found | Example'),
    '/de': html('<h1>Seite nicht gefunden</h1>', 'Example'),
    '/fr': html('<h2>Page introuvable</h2>', 'Example'),
    '/es': html('<h1>P&aacute;gina no encontrada</h1>', 'Example'),
    '/apos': html('<h1>Sorry, this page doesn’t exist</h1>', 'Example'),
    '/help': html('<h1>How to cancel</h1><p>If you see error 404, the page was not found.</p>'),
    '/script-only': html('<script>document.write("<h1>Not found</h1>")</script><h1>Billing</h1>'),
  });
  for (const path of ['/en', '/de', '/fr', '/es', '/apos']) {
    const r = await check(x, path);
    assert.equal(r.outcome, 'soft_404', path);
    assert.match(r.detail, /^http 200, page reads "/);
    assert.ok(r.content_hash, 'a soft 404 still has its text hashed');
  }
  assert.equal((await check(x, '/help')).outcome, 'ok', 'body text mentioning 404 is not a soft 404');
  assert.equal((await check(x, '/script-only')).outcome, 'ok', 'a heading inside a script is not visible');
});

test('a deep link redirected to the home page (or a locale home) is soft_404', async (t) => {
  const x = await site(t, {
    '/help/cancel': redirect(302, '/'),
    '/account/cancel': redirect(301, '/en-us/'),
    '/': html('<h1>Welcome</h1>'),
    '/en-us/': html('<h1>Welcome</h1>'),
  });
  const r = await check(x, '/help/cancel');
  assert.deepEqual(brief(r), { outcome: 'soft_404', http_status: 200, detail: 'http 200, landed on the home page /' });
  assert.equal((await check(x, '/account/cancel')).outcome, 'soft_404');
  assert.equal((await check(x, '/')).outcome, 'ok', 'the home page itself is fine');
});

test('a final host that is not official is off_domain, whatever it answered', async (t) => {
  const x = await site(t, {
    '/leave': (res) => res.writeHead(302, { location: `http://mirror.test:${x.s.port}/landing` }).end(),
    '/landing': html('<p>Call our support line</p>'),
  });
  const r = await check(x, '/leave');
  assert.equal(r.outcome, 'off_domain');
  assert.equal(r.detail, 'final host mirror.test is not on 127.0.0.1');
  assert.equal(r.final_url, `http://mirror.test:${x.s.port}/landing`);
  assert.equal(r.content_hash, null);
  const sibling = await checkLink(x.guard, { url: x.url('/landing'), officialDomains: ['mirror.test'] });
  assert.equal(sibling.outcome, 'off_domain', 'the official name does not vouch for its IP address');
});

test('a server that stalls is broken with a timeout detail, within the deadline', async (t) => {
  const x = await site(t, {
    '/slow': () => {},
    '/slow-body': (res) => res.writeHead(200, { 'content-type': 'text/html' }).write('<p>start'),
  });
  for (const path of ['/slow', '/slow-body']) {
    const r = await check(x, path, { timeoutMs: 200 });
    assert.equal(r.outcome, 'broken', path);
    assert.match(r.detail, /^timeout: /);
    assert.ok(r.duration_ms >= 150 && r.duration_ms < 1500, `took ${r.duration_ms} ms`);
  }
});

test('a redirect to the metadata address is refused by the guard before any connection', async (t) => {
  const x = await site(t, { '/go': redirect(302, 'http://169.254.169.254/latest/meta-data/') });
  const hosts: string[] = [];
  const onConnect = (m: unknown) => hosts.push((m as { connectParams: { hostname: string } }).connectParams.hostname);
  diagnostics.subscribe('undici:client:beforeConnect', onConnect);
  t.after(() => diagnostics.unsubscribe('undici:client:beforeConnect', onConnect));
  const r = await check(x, '/go');
  assert.equal(r.outcome, 'broken');
  assert.match(r.detail, /^refused by outbound guard: blocked_address: 169\.254\.169\.254/);
  assert.deepEqual(r.redirects, [{ url: x.url('/go'), status: 302 }]);
  assert.deepEqual(hosts, ['127.0.0.1'], 'only the loopback site was ever connected to');
  assert.equal(x.s.connections, 1);
});

test('URLs the guard refuses outright, and names that do not resolve, are broken', async (t) => {
  const x = await site(t, {});
  const official = ['127.0.0.1', 'nowhere.test'];
  const refused = await checkLink(x.guard, { url: 'file:///etc/passwd', officialDomains: official });
  assert.deepEqual(brief(refused), {
    outcome: 'broken',
    http_status: null,
    detail: 'refused by outbound guard: scheme: file: is not http: or https:',
  });
  const loop = await checkLink(x.guard, { url: 'http://127.0.0.1:9/', officialDomains: official });
  assert.match(loop.detail, /^refused by outbound guard: port: /);
  const dns = await checkLink(x.guard, { url: `http://nowhere.test:${x.s.port}/`, officialDomains: official });
  assert.equal(dns.outcome, 'broken');
  assert.match(dns.detail, /^dns: /);
  await assert.rejects(checkLink(x.guard, { url: x.url('/'), officialDomains: [] }), TypeError);
});

test('the content hash is stable, ignores scripts and dates, and flags real text changes', async (t) => {
  let text = 'Open Account, choose Cancel membership. Updated 2026-06-04 12:30, ref #48213.';
  const x = await site(t, { '/p': (res) => html(`<main><p>${text}</p></main>`)(res) });
  const first = await check(x, '/p');
  const again = await check(x, '/p', {}, first.content_hash);
  assert.equal(again.content_hash, first.content_hash, 'a random script value does not change the hash');
  assert.equal(again.content_changed, false);
  text = text.replace('2026-06-04 12:30, ref #48213', '2026-06-05 09:10, ref #90001');
  const redated = await check(x, '/p', {}, first.content_hash);
  assert.equal(redated.content_changed, false, 'only digits changed');
  text = text.replace('choose Cancel membership', 'call us to cancel');
  const edited = await check(x, '/p', {}, first.content_hash);
  assert.equal(edited.content_changed, true);
  assert.notEqual(edited.content_hash, first.content_hash);
});

test('an oversized body is read only up to maxBytes (512 KiB by default) and still classified', async (t) => {
  const total = 32 * 1024 * 1024;
  let sent = 0;
  let finished = false;
  const x = await site(t, {
    '/big': async (res) => {
      res.on('close', () => {
        finished = res.writableFinished;
      });
      res.writeHead(200, { 'content-type': 'text/html' });
      const chunk = Buffer.from('<p>cancel step</p>'.repeat(3641)); // 65 538 bytes
      while (sent < total && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) await drainOrClose(res);
      }
      res.end();
    },
  });
  const r = await check(x, '/big');
  assert.deepEqual(brief(r), { outcome: 'ok', http_status: 200, detail: 'http 200; body truncated at 524288 bytes' });
  assert.ok(r.content_hash);
  const small = await check(x, '/big', { maxBytes: 64 * 1024 });
  assert.equal(small.detail, 'http 200; body truncated at 65536 bytes');
  assert.notEqual(small.content_hash, r.content_hash);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(finished, false, 'the server never got to send the whole body');
});

function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}
