/**
 * Attacks the outbound guard must refuse. Each test names one class of trick; where a real
 * loopback server stands behind the forbidden address, the test also proves that it never saw
 * a connection.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts';
import { classifyAddress } from './address-policy.ts';
import { OutboundBlockedError } from './connector.ts';
import { guardedRequest } from './fetch.ts';
import { createOutboundGuard, type LookupFn, type OutboundGuard, type OutboundGuardOptions } from './guard.ts';

type T = { after(fn: () => unknown): void };

const plain = createOutboundGuard();

/** Each URL must be refused by checkUrl as a forbidden address of the given range. */
function assertBlocked(urls: string[], range: string, guard: OutboundGuard = plain): void {
  for (const url of urls) {
    const r = guard.checkUrl(url);
    assert.equal(r.ok ? 'ok' : r.reason, 'blocked_address', url);
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    assert.equal(classifyAddress(host).range, range, url);
    assert.equal(classifyAddress(host).allowed, false, url);
  }
}

async function server(t: T): Promise<HttpTarget> {
  const s = await startHttpTarget((_req, res) => res.end('reached'));
  t.after(() => s.close());
  return s;
}

function guardFor(t: T, options: OutboundGuardOptions): OutboundGuard {
  const g = createOutboundGuard(options);
  t.after(() => g.dispatcher.destroy());
  return g;
}

const reasonOf = (r: { ok: boolean; reason?: string }) => (r.ok ? 'ok' : r.reason);

test('loopback 127.0.0.0/8 and ::1 are refused, and a listening loopback server sees no connection', async (t) => {
  assertBlocked(['http://127.0.0.1/', 'http://127.255.255.254:8080/', 'http://[::1]/'], 'loopback');
  const target = await server(t);
  const result = await guardedRequest(plain, `${target.origin}/`);
  assert.equal(reasonOf(result), 'blocked');
  assert.equal(target.connections, 0);
});

test('private networks 10/8, 172.16/12 and 192.168/16 are refused', () => {
  assertBlocked(['http://10.0.0.1/', 'http://172.16.0.1/', 'http://172.31.255.255/', 'http://192.168.1.1/'], 'private');
});

test('link-local 169.254/16 and fe80::/10 are refused', () => {
  assertBlocked(['http://169.254.1.1/'], 'linkLocal');
  assertBlocked(['http://[fe80::1]/'], 'linkLocal');
});

test('cloud metadata endpoints are refused by name', () => {
  assertBlocked(
    [
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/',
      'http://100.100.100.200/',
      'http://168.63.129.16/',
    ],
    'metadata',
  );
});

test('unspecified 0.0.0.0 and :: are refused (they reach the local host on Linux)', () => {
  assertBlocked(['http://0.0.0.0/', 'http://0.1.2.3/', 'http://[::]/'], 'unspecified');
});

test('multicast and broadcast are refused', () => {
  assertBlocked(['http://224.0.0.1/', 'http://239.255.255.250/', 'http://[ff02::1]/'], 'multicast');
  assertBlocked(['http://255.255.255.255/'], 'broadcast');
});

test('IPv4-mapped IPv6 is unwrapped and the IPv4 inside is classified', () => {
  assertBlocked(['http://[::ffff:127.0.0.1]/', 'http://[::ffff:7f00:1]/'], 'loopback');
  assertBlocked(['http://[::ffff:10.1.2.3]/'], 'private');
  assertBlocked(['http://[::ffff:169.254.169.254]/'], 'metadata');
  assert.equal(classifyAddress('::ffff:7f00:1').via, 'ipv4Mapped');
});

test('NAT64, 6to4 and Teredo addresses that embed a private IPv4 are refused', () => {
  assertBlocked(['http://[64:ff9b::7f00:1]/', 'http://[2002:7f00:1::1]/'], 'loopback');
  assertBlocked(['http://[2002:a00:1::1]/'], 'private');
  // Teredo client 127.0.0.1 is stored bit-inverted: 0x80ff:0xfffe.
  assertBlocked(['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/'], 'loopback');
  assertBlocked(['http://[64:ff9b:1::a00:1]/'], 'rfc6052'); // local-use NAT64 prefix, RFC 8215
  assertBlocked(['http://[::7f00:1]/'], 'nonGlobal'); // deprecated IPv4-compatible form
});

test('unique-local fc00::/7 is refused', () => {
  assertBlocked(['http://[fc00::1]/', 'http://[fd12:3456:789a::1]/'], 'uniqueLocal');
});

test('carrier-grade NAT 100.64/10 is refused', () => {
  assertBlocked(['http://100.64.0.1/', 'http://100.127.255.254/'], 'carrierGradeNat');
});

test('documentation, benchmarking and reserved ranges are refused', () => {
  assertBlocked(
    ['http://192.0.2.1/', 'http://198.51.100.7/', 'http://203.0.113.9/', 'http://198.18.0.1/', 'http://240.0.0.1/'],
    'reserved',
  );
  assertBlocked(['http://[2001:db8::1]/'], 'reserved');
});

test('schemes other than http and https are refused', () => {
  for (const url of [
    'file:///etc/passwd',
    'gopher://example.com/_x',
    'ftp://example.com/',
    'javascript:alert(1)',
    'data:text/plain,x',
    'ws://example.com/',
  ]) {
    assert.equal(reasonOf(plain.checkUrl(url)), 'scheme', url);
  }
  assert.equal(reasonOf(plain.checkUrl('not a url')), 'invalid_url');
});

test('URLs carrying credentials are refused', () => {
  for (const url of ['http://user:pass@example.com/', 'https://user@example.com/', 'http://:secret@example.com/']) {
    assert.equal(reasonOf(plain.checkUrl(url)), 'credentials', url);
  }
});

test('ports of other protocols (SMTP, IMAP, SSH) are refused for HTTP', () => {
  for (const url of [
    'http://example.com:25/',
    'https://example.com:993/',
    'http://example.com:22/',
    'http://example.com:0/',
  ]) {
    assert.equal(reasonOf(plain.checkUrl(url)), 'port', url);
  }
});

test('decimal, octal and hex IPv4 spellings of 127.0.0.1 are refused', async () => {
  for (const url of [
    'http://2130706433/',
    'http://0x7f.1/',
    'http://017700000001/',
    'http://127.1/',
    'http://0x7f000001/',
  ]) {
    const r = plain.checkUrl(url);
    assert.equal(r.ok ? 'ok' : r.reason, 'blocked_address', url);
    assert.match(r.ok ? '' : r.detail, /^127\.0\.0\.1 is loopback$/, url);
  }
  for (const host of ['2130706433', '0x7f.1', '017700000001']) {
    assert.equal(reasonOf(await plain.resolve(host, 993)), 'blocked_address', host);
  }
});

test('localhost resolves to loopback and is refused, even when 127.0.0.1:<port> is allow-listed', async (t) => {
  const target = await server(t);
  assert.equal(reasonOf(await plain.resolve('localhost', 443)), 'blocked_address');
  const guard = guardFor(t, { allowHosts: [`127.0.0.1:${target.port}`] });
  const result = await guardedRequest(guard, `http://localhost:${target.port}/`);
  assert.equal(reasonOf(result), 'blocked');
  assert.equal(target.connections, 0);
});

test('a name that an injected DNS maps to 127.0.0.1 is refused by resolve and at connect time', async (t) => {
  const target = await server(t);
  const lookup: LookupFn = async (h) => (h === 'rebind.test' ? [{ address: '127.0.0.1', family: 4 }] : []);
  const guard = guardFor(t, { lookup });
  assert.equal(reasonOf(await guard.resolve('rebind.test', target.port)), 'blocked_address');
  assert.equal(guard.checkUrl(`http://rebind.test:${target.port}/`).ok, true, 'names pass the URL check…');
  const result = await guardedRequest(guard, `http://rebind.test:${target.port}/`);
  assert.equal(reasonOf(result), 'blocked', '…and are refused when the connection resolves them');
  assert.match(result.ok ? '' : result.detail, /rebind\.test → 127\.0\.0\.1 is loopback/);
  assert.equal(target.connections, 0);
});

test('a name resolving to a public and a private address is refused because any private address refuses', async () => {
  const answers: Record<string, { address: string; family: 4 | 6 }[]> = {
    'mixed.test': [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ],
    'mixed6.test': [
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
      { address: '::1', family: 6 },
    ],
  };
  const guard = createOutboundGuard({ lookup: async (h) => answers[h] ?? [] });
  const v4 = await guard.resolve('mixed.test', 443);
  assert.deepEqual(v4, { ok: false, reason: 'blocked_address', detail: 'mixed.test → 10.0.0.5 is private' });
  assert.equal(reasonOf(await guard.resolve('mixed6.test', 443)), 'blocked_address');
  // Refused during the connect-time lookup, before any socket to the public address is opened.
  const result = await guardedRequest(guard, 'http://mixed.test/');
  assert.equal(reasonOf(result), 'blocked');
  await guard.close();
});

test('DNS rebinding between check and connect is caught: the connection uses its own checked lookup', async (t) => {
  const target = await server(t);
  let calls = 0;
  const lookup: LookupFn = async () => {
    calls += 1;
    return [{ address: calls === 1 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
  };
  const guard = guardFor(t, { lookup });
  assert.equal((await guard.resolve('flip.test', target.port)).ok, true, 'first answer is public');
  const result = await guardedRequest(guard, `http://flip.test:${target.port}/`);
  assert.equal(reasonOf(result), 'blocked');
  assert.equal(calls, 2);
  assert.equal(target.connections, 0);
});

test('the dispatcher alone refuses forbidden addresses, without checkUrl in front of it', async (t) => {
  const target = await server(t);
  const guard = guardFor(t, { lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
  for (const url of [`${target.origin}/`, `http://rebind.test:${target.port}/`]) {
    await assert.rejects(request(url, { dispatcher: guard.dispatcher }), (err: Error) => {
      assert.ok(err instanceof OutboundBlockedError, `${url}: ${err}`);
      return true;
    });
  }
  assert.equal(target.connections, 0);
});

test('redirects from an allowed server to metadata, another loopback port or a rebinding name are refused', async (t) => {
  const other = await server(t);
  const allowed = await startHttpTarget((req, res) => {
    const to: Record<string, string> = {
      '/metadata': 'http://169.254.169.254/latest/meta-data/',
      '/other-port': `http://127.0.0.1:${other.port}/`,
      '/rebind': `http://rebind.test:${other.port}/`,
      '/file': 'file:///etc/passwd',
    };
    res.writeHead(302, { location: to[req.url ?? ''] ?? '/' }).end();
  });
  t.after(() => allowed.close());
  const lookup: LookupFn = async () => [{ address: '127.0.0.1', family: 4 }];
  const guard = guardFor(t, { allowHosts: [`127.0.0.1:${allowed.port}`], lookup });
  const expected: Record<string, RegExp> = {
    '/metadata': /^blocked_address: 169\.254\.169\.254 is metadata$/,
    '/other-port': /^blocked_address: 127\.0\.0\.1 is loopback$/,
    '/rebind': /^blocked_address: rebind\.test → 127\.0\.0\.1 is loopback$/,
    '/file': /^scheme: file: /,
  };
  for (const [path, detail] of Object.entries(expected)) {
    const result = await guardedRequest(guard, allowed.origin + path);
    assert.ok(!result.ok, path);
    assert.equal(result.reason, 'blocked', path);
    assert.match(result.detail, detail, path);
    assert.deepEqual(result.redirects, [{ url: allowed.origin + path, status: 302 }], path);
  }
  assert.equal(allowed.seen.length, 4);
  assert.equal(other.connections, 0);
  assert.equal(other.seen.length, 0);
});
