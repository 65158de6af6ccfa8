/**
 * One-click URIs come from a stranger's List-Unsubscribe header. Each case here is a server-side
 * request forgery trick aimed at this machine, its private network or the cloud metadata service.
 * The guard has no allow list (as in production), and a TCP listener on 127.0.0.1 and ::1 at the
 * port the tricks name counts connections: every case must end refused with zero of them.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { test } from 'node:test';
import { createOutboundGuard, type LookupFn } from '../outbound/guard.ts';
import { postOneClick } from './one-click.ts';

type T = { after(fn: () => unknown): void };

/** Counts connections on 127.0.0.1:<port> and, when this host has IPv6, on [::1]:<port>. */
async function listener(t: T): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const servers: Server[] = [];
  const listen = (host: string, port: number) =>
    new Promise<number>((resolve, reject) => {
      const server = createServer((socket) => {
        connections += 1;
        socket.destroy();
      });
      server.once('error', reject);
      server.listen(port, host, () => {
        servers.push(server);
        resolve((server.address() as { port: number }).port);
      });
    });
  const port = await listen('127.0.0.1', 0);
  await listen('::1', port).catch(() => {}); // no IPv6 loopback here: those URLs fail anyway
  t.after(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));
  return { port, connections: () => connections };
}

function hostileGuard(t: T) {
  const asked: string[] = [];
  // A DNS that answers what an attacker's zone would.
  const lookup: LookupFn = async (host) => {
    asked.push(host);
    if (host === 'rebind.test' || host === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
    if (host === 'mixed.test') {
      return [
        { address: '93.184.215.14', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ];
    }
    if (host === 'v6.test') return [{ address: '::ffff:127.0.0.1', family: 6 }];
    if (host === 'meta.test') return [{ address: '169.254.169.254', family: 4 }];
    throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  };
  const guard = createOutboundGuard({ lookup });
  t.after(() => guard.dispatcher.destroy());
  return { guard, asked };
}

test('address tricks for loopback, metadata and private space are blocked without a connection', async (t) => {
  const { port, connections } = await listener(t);
  const { guard } = hostileGuard(t);
  for (const url of [
    'https://169.254.169.254/latest/meta-data/iam/security-credentials/',
    'https://[fd00:ec2::254]/latest/meta-data/',
    'https://100.100.100.200/latest/meta-data/',
    `https://127.0.0.1:${port}/u`,
    `https://[::1]:${port}/u`,
    `https://[::ffff:127.0.0.1]:${port}/u`, // IPv4-mapped IPv6
    `https://[::ffff:7f00:1]:${port}/u`, // the same, in hex
    `https://[64:ff9b::7f00:1]:${port}/u`, // NAT64 of 127.0.0.1
    `https://2130706433:${port}/u`, // 127.0.0.1 as one decimal number
    `https://0x7f000001:${port}/u`,
    `https://0177.0.0.1:${port}/u`, // octal
    `https://127.1:${port}/u`,
    `https://0.0.0.0:${port}/u`, // Linux connects this to loopback
    `https://[::]:${port}/u`,
    'https://10.0.0.5/u',
    'https://192.168.1.1/u',
    'https://[fe80::1]/u',
  ]) {
    const result = await postOneClick(guard, url);
    assert.equal(!result.ok && result.reason, 'blocked', url);
    assert.equal(result.detail, 'The address points to a private network and was not contacted.', url);
  }
  assert.equal(connections(), 0);
});

test('host names that resolve to loopback, metadata or a mixed answer are blocked after DNS', async (t) => {
  const { port, connections } = await listener(t);
  const { guard, asked } = hostileGuard(t);
  for (const host of ['rebind.test', 'localhost', 'mixed.test', 'v6.test', 'meta.test']) {
    const result = await postOneClick(guard, `https://${host}:${port}/u`);
    assert.equal(!result.ok && result.reason, 'blocked', host);
    assert.equal(result.status, null, host);
  }
  // The names were really resolved (by the guard's lookup, the one the connection would use).
  assert.deepEqual(asked, ['rebind.test', 'localhost', 'mixed.test', 'v6.test', 'meta.test']);
  assert.equal(connections(), 0);
});

test('credentials in the URI and ports of other protocols are blocked before any lookup', async (t) => {
  const { port, connections } = await listener(t);
  const { guard, asked } = hostileGuard(t);
  const cases: [string, RegExp][] = [
    [`https://user:secret@127.0.0.1:${port}/u`, /user name or password/],
    ['https://rebind.test:25/u', /port reserved for another protocol/], // SMTP
    ['https://rebind.test:6379/u', /private network/], // not a bad port, but resolves to loopback
  ];
  for (const [url, detail] of cases) {
    const result = await postOneClick(guard, url);
    assert.equal(!result.ok && result.reason, 'blocked', url);
    assert.match(result.detail, detail, url);
    assert.ok(!result.detail.includes('secret'), 'the URI password is not echoed');
  }
  assert.deepEqual(asked, ['rebind.test']);
  assert.equal(connections(), 0);
});

test('non-https schemes are refused as not_https without a connection', async (t) => {
  const { port, connections } = await listener(t);
  const { guard, asked } = hostileGuard(t);
  for (const url of [
    'file:///etc/passwd',
    'javascript:fetch("http://169.254.169.254/")',
    'data:text/html,<script>alert(1)</script>',
    `http://127.0.0.1:${port}/u`,
    'http://169.254.169.254/latest/meta-data/',
    `ftp://127.0.0.1:${port}/u`,
    `gopher://127.0.0.1:${port}/_SET%20x%201`,
    `ws://127.0.0.1:${port}/u`,
  ]) {
    const result = await postOneClick(guard, url);
    assert.equal(!result.ok && result.reason, 'not_https', url);
    assert.equal(result.status, null, url);
  }
  assert.deepEqual(asked, []);
  assert.equal(connections(), 0);
});

test('text that is not a URI at all is blocked, never thrown', async (t) => {
  const { guard } = hostileGuard(t);
  for (const url of ['', 'not a url', 'https://', '//169.254.169.254/', 'https://[::1/']) {
    const result = await postOneClick(guard, url);
    assert.equal(!result.ok && result.reason, 'blocked', JSON.stringify(url));
  }
});
