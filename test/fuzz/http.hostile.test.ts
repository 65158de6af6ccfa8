/**
 * Generated hostile HTTP requests (fast-check) against the whole app listening on loopback:
 * every route it serves, with wrong methods, mangled path parameters (invalid UTF-8, traversal,
 * 4 KB segments), hostile query strings (prototype keys, repeated and huge values) and bodies of
 * every shape (deep nesting, wrong types, prototype keys, invalid UTF-8, binary) under any
 * content type. Never a 5xx, never a stack trace or an internal detail in an answer, never an
 * unhandled error in the log, and the server answers after it all. Budget: test/fuzz/settings.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { UNLIMITED } from '../helpers/agent.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fuzzParams } from './settings.ts';

let t: TestApp;
let port: number;
let dataDir: string;
// A connection per request: a server that answers early and closes (413) must not turn the next
// request, sent on a reused socket, into a hang-up that is no fault of the server's.
const agent = new Agent({ keepAlive: false });
let routes: { path: string; methods: string[] }[] = [];

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'optout-fuzz-'));
  t = await startTestApp({
    env: { DATA_DIR: dataDir, LINK_CHECKS_PER_IP: '100000' },
    runtime: { worker: false, agent: { limits: UNLIMITED } },
  });
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = Number(new URL(address).port);
  routes = routesOf(t.app.printRoutes({ commonPrefix: false }));
  assert.ok(routes.length > 30, 'the route list was read');
  assert.ok(routes.every((r) => r.path.startsWith('/')) && routes.some((r) => r.path === '/api/v1/services/:slug'));
});

after(async () => {
  agent.destroy();
  await t.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Fastify's route tree ("├── api/v1/services (GET, HEAD)", children indented by 4) → full paths. */
function routesOf(tree: string): { path: string; methods: string[] }[] {
  const out: { path: string; methods: string[] }[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ├└─]*)(\S.*?) \(([A-Z, ]+)\)$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4 - 1; // the root "/" is drawn with one level of lines
    const parent = depth === 0 ? '' : stack[depth - 1]!;
    const name = m[2]!;
    const path = depth === 0 ? name : parent === '/' ? `/${name}` : `${parent}${name}`;
    stack[depth] = path;
    stack.length = depth + 1;
    out.push({ path, methods: m[3]!.split(', ') });
  }
  return out;
}

/** Percent-encodes the UTF-8 of any string (lone surrogates become U+FFFD first). */
const enc = (s: string) => encodeURIComponent(s.toWellFormed());

const nasty = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }).map(enc),
  fc.constantFrom(
    '%C3%28',
    '%FF%FE',
    '%',
    '%zz',
    '%00',
    '..',
    '%2e%2e%2f%2e%2e',
    '%2F',
    '__proto__',
    'constructor',
    '%E2%80%AE',
    'a'.repeat(4000),
  ),
  fc.stringMatching(/^[a-z0-9-]{1,30}$/),
);

const query = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(
          'q',
          'tier',
          'category',
          'limit',
          'offset',
          'lang',
          'code',
          'state',
          '__proto__',
          'constructor.prototype',
          'q[]',
        ),
        nasty,
      ),
      fc.oneof(nasty, fc.integer().map(String), fc.constantFrom('', 'true', '-1', '1e999', 'NaN', '[]', '{}')),
    ),
    { maxLength: 6 },
  )
  .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));

const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const jsonBody = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc
    .dictionary(
      fc.oneof(
        fc.constantFrom(
          'slug',
          'tone',
          'lang',
          'type',
          'email',
          'claim_token',
          'otp',
          'token',
          '__proto__',
          'constructor',
          'prototype',
        ),
        fc.string({ maxLength: 10 }),
      ),
      fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.string({ unit: 'binary', maxLength: 3000 })),
      { maxKeys: 6 },
    )
    .map((o) => JSON.stringify(o)),
  fc.constantFrom(
    deep(5000),
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '{"a":1,"a":2}',
    '{',
    '"',
    'null',
    '',
    '\u0000',
  ),
);
const body = fc.oneof(
  jsonBody.map((s) => Buffer.from(s, 'utf8')),
  fc.uint8Array({ maxLength: 600 }).map((b) => Buffer.from(b)),
  fc.constant(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0x22, 0x7d])), // {"a":"<invalid UTF-8>"}
  fc.constant(Buffer.alloc(300 * 1024, 0x61)),
);
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/x-www-form-urlencoded',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/json; charset=latin1',
  'garbage',
  undefined,
);

const req = fc.record({
  route: fc.nat(),
  method: fc.oneof(fc.constant(null), fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS')),
  params: fc.array(nasty, { minLength: 3, maxLength: 3 }),
  suffix: fc.oneof(
    fc.constant(''),
    nasty.map((s) => `/${s}`),
  ),
  query,
  contentType,
  body: fc.option(body, { nil: null }),
  origin: fc.option(fc.constantFrom('https://evil.example', 'null', 'http://127.0.0.1'), { nil: null }),
});

/** Traces of internals an answer must never carry: stack frames, file paths, library names. */
const INTERNALS =
  /\n\s+at |\bat \S+ \(|file:\/\/|\/node_modules\/|\.ts:\d+|\bFST_[A-Z_]+|ZodError|TypeError|ReferenceError/;

function send(method: string, path: string, headers: Record<string, string>, payload: Buffer | null) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    r.on('error', (err) => reject(new Error(`${method} ${path.slice(0, 200)}: ${err.message}`)));
    r.end(payload ?? undefined);
  });
}

test('generated hostile requests to every route: never a 5xx, a stack trace or an unhandled error', async () => {
  await fc.assert(
    fc.asyncProperty(req, async (g) => {
      const route = routes[g.route % routes.length]!;
      const method = g.method ?? route.methods[g.route % route.methods.length]!;
      let i = 0;
      const path = route.path.replace(/:\w+|\*/g, () => g.params[i++ % 3]!) + g.suffix;
      const url = `${path}${g.query ? `?${g.query}` : ''}`;
      const headers: Record<string, string> = {};
      if (g.contentType) headers['content-type'] = g.contentType;
      if (g.origin) headers.origin = g.origin;
      const payload = method === 'GET' || method === 'HEAD' ? null : g.body;
      // framed explicitly: Node sends a DELETE or OPTIONS body without framing otherwise
      if (payload) headers['content-length'] = String(payload.length);
      const res = await send(method, url, headers, payload);
      assert.ok(
        res.status >= 200 && res.status < 500,
        `${method} ${url.slice(0, 200)} → ${res.status} ${res.body.slice(0, 300)}`,
      );
      // refusals are where internals leak (pages and feeds are our own prose, free to name anything)
      if (res.status >= 400) assert.doesNotMatch(res.body, INTERNALS, `${method} ${url.slice(0, 200)}`);
    }),
    fuzzParams(800),
  );
  assert.equal((await send('GET', '/healthz', {}, null)).status, 200);
  const unhandled = t.logs.filter((l) => /"level":(50|60)/.test(l));
  assert.deepEqual(unhandled, [], 'nothing was logged as an error');
});
