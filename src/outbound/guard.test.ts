import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts';
import { classifyAddress } from './address-policy.ts';
import { guardedRequest } from './fetch.ts';
import { createOutboundGuard, type LookupFn, type OutboundGuardOptions } from './guard.ts';

type T = { after(fn: () => unknown): void };

async function server(t: T, handler: Parameters<typeof startHttpTarget>[0]): Promise<HttpTarget> {
  const s = await startHttpTarget(handler);
  t.after(() => s.close());
  return s;
}

function guardFor(t: T, options: OutboundGuardOptions) {
  const g = createOutboundGuard(options);
  t.after(() => g.dispatcher.destroy());
  return g;
}

test('public IPv4 and IPv6 addresses are allowed, including NAT64 of a public IPv4', () => {
  assert.deepEqual(classifyAddress('8.8.8.8'), { allowed: true, range: 'unicast' });
  assert.deepEqual(classifyAddress('172.32.0.1'), { allowed: true, range: 'unicast' }); // just past 172.16/12
  assert.deepEqual(classifyAddress('2606:4700:4700::1111'), { allowed: true, range: 'unicast' });
  assert.deepEqual(classifyAddress('64:ff9b::808:808'), { allowed: true, range: 'unicast', via: 'nat64' });
  const guard = createOutboundGuard();
  const checked = guard.checkUrl('https://Example.COM/unsubscribe?id=1');
  assert.equal(checked.ok, true);
  assert.equal(checked.ok && checked.url.href, 'https://example.com/unsubscribe?id=1');
  assert.equal(guard.checkUrl('http://93.184.215.14:8080/').ok, true);
});

test('allowHosts 127.0.0.1:<port> lets only that port through; a bare host allows every port', () => {
  const guard = createOutboundGuard({ allowHosts: ['127.0.0.1:4100'] });
  assert.equal(guard.checkUrl('http://127.0.0.1:4100/').ok, true);
  assert.deepEqual(pick(guard.checkUrl('http://127.0.0.1:4101/')), 'blocked_address');
  assert.deepEqual(pick(guard.checkUrl('http://127.0.0.2:4100/')), 'blocked_address');
  const bare = createOutboundGuard({ allowHosts: ['mail.internal', '[::1]:4100'] });
  assert.equal(bare.checkUrl('http://[::1]:4100/').ok, true);
  assert.equal(pick(bare.checkUrl('http://[::1]:4101/')), 'blocked_address');
  assert.throws(() => createOutboundGuard({ allowHosts: ['127.0.0.1:notaport'] }), /OUTBOUND_ALLOW_HOSTS/);
});

test('resolve allows an allow-listed host name only on its listed port', async () => {
  const lookup: LookupFn = async () => [{ address: '10.0.0.7', family: 4 }];
  const guard = createOutboundGuard({ allowHosts: ['mail.internal:993'], lookup });
  assert.deepEqual(await guard.resolve('mail.internal', 993), {
    ok: true,
    address: '10.0.0.7',
    family: 4,
    addresses: [{ address: '10.0.0.7', family: 4 }],
  });
  assert.equal(pick(await guard.resolve('mail.internal', 465)), 'blocked_address');
});

test('resolve classifies IP literals without asking DNS and reports DNS failures as dns', async () => {
  let lookups = 0;
  const failing: LookupFn = async () => {
    lookups += 1;
    throw Object.assign(new Error('queryA ENOTFOUND'), { code: 'ENOTFOUND' });
  };
  const guard = createOutboundGuard({ lookup: failing });
  assert.equal((await guard.resolve('8.8.8.8', 993)).ok, true);
  assert.equal(pick(await guard.resolve('[::1]', 993)), 'blocked_address');
  assert.equal(lookups, 0);
  assert.equal(pick(await guard.resolve('nowhere.example', 993)), 'dns');
  assert.equal(pick(await guard.resolve('a/b', 993)), 'invalid_url');
  assert.equal(pick(await guard.resolve('example.com', 0)), 'port');
  const result = await guardedRequest(guard, 'http://nowhere.example/');
  assert.equal(result.ok ? 'ok' : result.reason, 'dns');
});

test('a loopback server is reached through allowHosts, by address and by an allow-listed name', async (t) => {
  const s = await server(t, (_req, res) => res.end('hello'));
  const lookup: LookupFn = async (h) => (h === 'sink.internal' ? [{ address: '127.0.0.1', family: 4 }] : []);
  const guard = guardFor(t, { allowHosts: [`127.0.0.1:${s.port}`, `sink.internal:${s.port}`], lookup });
  const byAddress = await guardedRequest(guard, `${s.origin}/one`, { headers: { Cookie: 'session=secret' } });
  assert.equal(byAddress.ok, true);
  assert.equal(byAddress.ok && byAddress.status, 200);
  assert.equal(byAddress.ok && byAddress.body.toString(), 'hello');
  assert.equal(byAddress.ok && byAddress.finalUrl, `${s.origin}/one`);
  const byName = await guardedRequest(guard, `http://sink.internal:${s.port}/two`);
  assert.equal(byName.ok && byName.status, 200);
  assert.deepEqual(
    s.seen.map((r) => r.url),
    ['/one', '/two'],
  );
  assert.equal(s.seen[0]?.headers.cookie, undefined, 'cookies are never sent');
});

test('redirects are followed, re-checked and recorded in order', async (t) => {
  const s = await server(t, (req, res) => {
    if (req.url === '/a') res.writeHead(302, { location: '/b' }).end();
    else if (req.url === '/b') res.writeHead(301, { location: `${s.origin}/c?x=1` }).end('moved');
    else res.end(`final ${req.url}`);
  });
  const guard = guardFor(t, { allowHosts: [`127.0.0.1:${s.port}`] });
  const result = await guardedRequest(guard, `${s.origin}/a`);
  assert.ok(result.ok);
  assert.equal(result.body.toString(), 'final /c?x=1');
  assert.equal(result.finalUrl, `${s.origin}/c?x=1`);
  assert.deepEqual(result.redirects, [
    { url: `${s.origin}/a`, status: 302 },
    { url: `${s.origin}/b`, status: 301 },
  ]);
  const unfollowed = await guardedRequest(guard, `${s.origin}/a`, { followRedirects: false });
  assert.equal(unfollowed.ok && unfollowed.status, 302);
  assert.equal(unfollowed.ok && unfollowed.headers.location, '/b');
});

test('a redirect loop stops after maxRedirects with too_many_redirects', async (t) => {
  const s = await server(t, (req, res) => {
    const n = Number(req.url?.slice(1));
    res.writeHead(302, { location: `/${n + 1}` }).end();
  });
  const guard = guardFor(t, { allowHosts: [`127.0.0.1:${s.port}`] });
  const result = await guardedRequest(guard, `${s.origin}/0`, { maxRedirects: 3 });
  assert.equal(result.ok ? 'ok' : result.reason, 'too_many_redirects');
  // Three redirects followed; the fourth redirect response is recorded and not followed.
  assert.deepEqual(
    result.redirects.map((r) => r.url),
    ['/0', '/1', '/2', '/3'].map((p) => s.origin + p),
  );
  assert.equal(s.seen.length, 4);
});

test('a server that never answers ends in timeout within the deadline', async (t) => {
  const s = await server(t, () => {
    /* accept the request and say nothing */
  });
  const guard = guardFor(t, { allowHosts: [`127.0.0.1:${s.port}`] });
  const started = Date.now();
  const result = await guardedRequest(guard, `${s.origin}/slow`, { timeoutMs: 200 });
  const elapsed = Date.now() - started;
  assert.equal(result.ok ? 'ok' : result.reason, 'timeout');
  assert.ok(elapsed >= 190 && elapsed < 2000, `took ${elapsed} ms`);
  assert.equal(s.seen.length, 1);
});

test('a body larger than maxBytes is cut at maxBytes and marked truncated', async (t) => {
  let written = 0;
  const s = await server(t, (req, res) => {
    if (req.url === '/exact') return void res.end(Buffer.alloc(100_000, 'b'));
    const chunk = Buffer.alloc(16 * 1024, 'a');
    // Stream without end; stop only when the client goes away.
    const pump = () => {
      while (!res.destroyed && written < 50_000_000 && res.write(chunk)) written += chunk.length;
    };
    res.on('drain', pump);
    pump();
  });
  const guard = guardFor(t, { allowHosts: [`127.0.0.1:${s.port}`] });
  const result = await guardedRequest(guard, `${s.origin}/big`, { maxBytes: 100_000 });
  assert.ok(result.ok);
  assert.equal(result.truncated, true);
  assert.equal(result.body.length, 100_000);
  assert.ok(written < 50_000_000, 'the rest of the body was not downloaded');
  const exact = await guardedRequest(guard, `${s.origin}/exact`, { maxBytes: 100_000 });
  assert.ok(exact.ok);
  assert.equal(exact.truncated, false, 'a body of exactly maxBytes is complete');
  assert.equal(exact.body.length, 100_000);
});

test('303 turns a POST into a GET without body; 302 on POST becomes GET; 307 keeps method and body', async (t) => {
  const s = await server(t, (req, res) => {
    if (req.url === '/see-other') res.writeHead(303, { location: '/landing' }).end();
    else if (req.url === '/found') res.writeHead(302, { location: '/landing' }).end();
    else if (req.url === '/temporary') res.writeHead(307, { location: '/landing' }).end();
    else res.end('done');
  });
  const guard = guardFor(t, { allowHosts: [`127.0.0.1:${s.port}`] });
  const form = {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  };
  for (const path of ['/see-other', '/found', '/temporary']) {
    const result = await guardedRequest(guard, s.origin + path, form);
    assert.equal(result.ok && result.status, 200, path);
  }
  const landings = s.seen.filter((r) => r.url === '/landing');
  assert.deepEqual(
    landings.map((r) => [r.method, r.body, r.headers['content-type']]),
    [
      ['GET', '', undefined],
      ['GET', '', undefined],
      ['POST', 'List-Unsubscribe=One-Click', 'application/x-www-form-urlencoded'],
    ],
  );
});

test('Authorization is dropped when a redirect crosses to another origin', async (t) => {
  const b = await server(t, (_req, res) => res.end('b'));
  const a = await server(t, (_req, res) => res.writeHead(302, { location: `${b.origin}/landing` }).end());
  const guard = guardFor(t, { allowHosts: [`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`] });
  const result = await guardedRequest(guard, `${a.origin}/start`, { headers: { Authorization: 'Bearer t' } });
  assert.equal(result.ok && result.status, 200);
  assert.equal(a.seen[0]?.headers.authorization, 'Bearer t');
  assert.equal(b.seen[0]?.headers.authorization, undefined);
});

function pick(r: { ok: boolean; reason?: string }): string {
  return r.ok ? 'ok' : (r.reason ?? '?');
}
