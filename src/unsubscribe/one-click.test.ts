/**
 * postOneClick against real HTTPS servers on 127.0.0.1 (certificates from the test CA, verified
 * as in production). Each server records requests and counts TCP connections, so "not contacted"
 * is measured, not assumed.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { certPath, keyPath, trustTestCa } from '../../test/helpers/tls-ca.ts';
import { createOutboundGuard, type OutboundGuard } from '../outbound/guard.ts';
import { DEFAULT_USER_AGENT, postOneClick } from './one-click.ts';

trustTestCa();

type T = { after(fn: () => unknown): void };
type Seen = { method: string; path: string; headers: IncomingHttpHeaders; body: string };
type Sink = { port: number; origin: string; received: Seen[]; connections: () => number };
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const tlsOptions = { cert: readFileSync(certPath), key: readFileSync(keyPath) };

async function sink(t: T, handler: Handler, scheme: 'https' | 'http' = 'https'): Promise<Sink> {
  const received: Seen[] = [];
  let connections = 0;
  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    received.push({
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString(),
    });
    handler(req, res);
  };
  const server = scheme === 'https' ? createHttpsServer(tlsOptions, onRequest) : createHttpServer(onRequest);
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { port, origin: `${scheme}://127.0.0.1:${port}`, received, connections: () => connections };
}

/** A guard that lets through exactly the given test servers, as OUTBOUND_ALLOW_HOSTS would. */
function guardFor(t: T, ...sinks: Sink[]): OutboundGuard {
  const guard = createOutboundGuard({ allowHosts: sinks.map((s) => `127.0.0.1:${s.port}`) });
  t.after(() => guard.dispatcher.destroy());
  return guard;
}

test('a 202 answer is ok, after exactly one POST with the RFC 8058 body and content type', async (t) => {
  const s = await sink(t, (_req, res) => res.writeHead(202).end('queued'));
  const result = await postOneClick(guardFor(t, s), `${s.origin}/u/abc`);
  assert.deepEqual(result, { ok: true, status: 202, detail: 'The sender accepted the one-click request (HTTP 202).' });
  assert.equal(s.received.length, 1);
  const [req] = s.received;
  assert.equal(req?.method, 'POST');
  assert.equal(req?.body, 'List-Unsubscribe=One-Click');
  assert.equal(req?.headers['content-type'], 'application/x-www-form-urlencoded');
  assert.equal(req?.headers['user-agent'], DEFAULT_USER_AGENT);
});

test('the POST carries no cookie, authorization, referer or any header beyond the minimum', async (t) => {
  const s = await sink(t, (_req, res) => res.writeHead(200).end());
  const result = await postOneClick(guardFor(t, s), `${s.origin}/u`, { userAgent: 'optout-test' });
  assert.equal(result.ok, true);
  const headers = s.received[0]?.headers ?? {};
  for (const name of ['cookie', 'cookie2', 'authorization', 'proxy-authorization', 'referer', 'origin']) {
    assert.equal(headers[name], undefined, name);
  }
  // Everything present is transport framing plus what RFC 8058 asks for.
  const allowed = new Set(['host', 'connection', 'content-type', 'content-length', 'user-agent']);
  assert.deepEqual(
    Object.keys(headers).filter((h) => !allowed.has(h)),
    [],
  );
  assert.equal(headers['user-agent'], 'optout-test');
});

test('the URI is posted as given: path, percent-escapes, commas and plus signs are kept', async (t) => {
  const s = await sink(t, (_req, res) => res.writeHead(200).end());
  const path = '/unsub/a%2Fb%20c?list=1,2&t=x+y&sig=AbC-_%3D%3D';
  const result = await postOneClick(guardFor(t, s), `${s.origin}${path}#fragment`);
  assert.equal(result.ok, true);
  assert.equal(s.received[0]?.path, path);
});

test('a redirect is not followed: rejected with its status, and the target gets nothing', async (t) => {
  const target = await sink(t, (_req, res) => res.writeHead(200).end());
  const s = await sink(t, (_req, res) => res.writeHead(302, { location: `${target.origin}/landing` }).end());
  const result = await postOneClick(guardFor(t, s, target), `${s.origin}/u`);
  assert.equal(result.ok, false);
  assert.equal(!result.ok && result.reason, 'rejected');
  assert.equal(result.status, 302);
  assert.match(result.detail, /redirect \(HTTP 302\).*not followed/);
  assert.equal(s.received.length, 1);
  assert.equal(target.received.length, 0);
  assert.equal(target.connections(), 0);
});

test('a 307 to the same host is not followed either', async (t) => {
  const s = await sink(t, (req, res) =>
    req.url === '/u' ? res.writeHead(307, { location: '/again' }).end() : res.writeHead(200).end(),
  );
  const result = await postOneClick(guardFor(t, s), `${s.origin}/u`);
  assert.deepEqual([result.ok, result.status], [false, 307]);
  assert.deepEqual(
    s.received.map((r) => r.path),
    ['/u'],
  );
});

test('a 500 answer is rejected with its status and a sentence saying so', async (t) => {
  const s = await sink(t, (_req, res) => res.writeHead(500).end('oops'));
  const result = await postOneClick(guardFor(t, s), `${s.origin}/u`);
  assert.deepEqual(result, {
    ok: false,
    reason: 'rejected',
    status: 500,
    detail: "The sender's server refused it (HTTP 500).",
  });
});

test('a 404 answer is rejected too', async (t) => {
  const s = await sink(t, (_req, res) => res.writeHead(404).end());
  const result = await postOneClick(guardFor(t, s), `${s.origin}/gone`);
  assert.deepEqual([result.ok, !result.ok && result.reason, result.status], [false, 'rejected', 404]);
});

test('a server that accepts the POST and never answers ends in timeout within timeoutMs', async (t) => {
  const s = await sink(t, () => {
    /* say nothing */
  });
  const started = Date.now();
  const result = await postOneClick(guardFor(t, s), `${s.origin}/slow`, { timeoutMs: 300 });
  const elapsed = Date.now() - started;
  assert.equal(!result.ok && result.reason, 'timeout');
  assert.equal(result.status, null);
  assert.equal(result.detail, "The sender's server did not answer within 300 ms.");
  assert.ok(elapsed >= 290 && elapsed < 2000, `took ${elapsed} ms`);
});

test('a huge answer body is not read past maxBytes and the outcome still stands', async (t) => {
  let written = 0;
  const s = await sink(t, (_req, res) => {
    res.writeHead(200);
    const chunk = Buffer.alloc(16 * 1024, 'a');
    const pump = () => {
      while (!res.destroyed && written < 50_000_000 && res.write(chunk)) written += chunk.length;
    };
    res.on('drain', pump);
    pump();
  });
  const result = await postOneClick(guardFor(t, s), `${s.origin}/big`, { maxBytes: 1024 });
  assert.deepEqual([result.ok, result.status], [true, 200]);
  assert.ok(written < 50_000_000, 'the rest of the body was not downloaded');
});

test('an http:// URI is not_https and the server sees no connection', async (t) => {
  const s = await sink(t, (_req, res) => res.writeHead(200).end(), 'http');
  const result = await postOneClick(guardFor(t, s), `${s.origin}/u`);
  assert.equal(!result.ok && result.reason, 'not_https');
  assert.equal(result.status, null);
  assert.match(result.detail, /Only https/);
  assert.equal(s.connections(), 0);
});

test('a server that does not speak TLS on an https URI is a tls failure', async (t) => {
  const s = await sink(t, (_req, res) => res.writeHead(200).end(), 'http');
  const result = await postOneClick(guardFor(t, s), `https://127.0.0.1:${s.port}/u`);
  assert.equal(!result.ok && result.reason, 'tls');
  assert.equal(s.received.length, 0);
});

test('a closed port is a network failure, with no status', async (t) => {
  const port = await freePort();
  const guard = createOutboundGuard({ allowHosts: [`127.0.0.1:${port}`] });
  t.after(() => guard.dispatcher.destroy());
  const result = await postOneClick(guard, `https://127.0.0.1:${port}/u`);
  assert.deepEqual([result.ok, !result.ok && result.reason, result.status], [false, 'network', null]);
  assert.equal(result.detail, "The sender's server could not be reached.");
});

test('the guard refuses metadata, private and not-allowed loopback targets: blocked, no connection', async (t) => {
  const allowed = await sink(t, (_req, res) => res.writeHead(200).end());
  const other = await sink(t, (_req, res) => res.writeHead(200).end());
  const guard = guardFor(t, allowed);
  for (const url of [
    'https://169.254.169.254/latest/meta-data/',
    'https://10.0.0.5/unsubscribe',
    `https://127.0.0.1:${other.port}/u`,
    `https://localhost:${allowed.port}/u`,
  ]) {
    const result = await postOneClick(guard, url);
    assert.equal(!result.ok && result.reason, 'blocked', url);
    assert.equal(result.status, null, url);
    assert.equal(result.detail, 'The address points to a private network and was not contacted.', url);
  }
  assert.equal(other.connections(), 0);
  assert.equal(allowed.connections(), 0);
});

async function freePort(): Promise<number> {
  const server = createHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
