/**
 * Generated hostile /ws frames (fast-check) on a real connection: JSON of the wrong shape (wrong
 * types, unknown and prototype keys, huge strings, deep nesting), near-valid messages with one
 * field broken, non-JSON text, invalid UTF-8 and binary frames. Every answer fits the protocol
 * (the test client checks each frame against its schema), none is INTERNAL or carries internals,
 * the connection stays usable (only invalid UTF-8, 1007, and oversized frames, 1009, close it, as
 * RFC 6455 §7.4.1 says), and nothing is logged as an error. A frame that would be a valid `scan`
 * is not sent: a scan is real work against a mail server, not hostile input.
 * Budget and a longer run: test/fuzz/settings.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { ClientMessage } from '../../src/channel/protocol.ts';
import { MAX_FRAME_BYTES } from '../../src/channel/ws-route.ts';
import { listenWs, startTestApp, type TestApp } from '../helpers/app.ts';
import { connectWs, type WsClient } from '../helpers/ws-client.ts';
import { fuzzParams } from './settings.ts';

const ORIGIN = 'http://127.0.0.1:3999';
let t: TestApp;
let url: string;
let c: WsClient;

before(async () => {
  t = await startTestApp({ env: { BASE_URL: ORIGIN }, runtime: { worker: false } });
  url = await listenWs(t);
  c = await fresh();
});
after(async () => {
  await c.close();
  await t.close();
});

async function fresh(): Promise<WsClient> {
  const client = await connectWs(url, ORIGIN);
  await client.next('ready');
  return client;
}

const KEYS = [
  'type',
  'provider',
  'email',
  'password',
  'host',
  'port',
  'tls',
  'smtp',
  'since',
  'mailboxes',
  'ids',
  'session',
  'archive',
  'dry_run',
  'include_flagged',
  'previous_unsubscribes',
  'oauth_session',
  '__proto__',
  'constructor',
  'prototype',
];
const TYPES = [
  'scan',
  'quota',
  'unsubscribe',
  'cancel',
  'resume',
  'SCAN',
  '',
  'ready',
  'error',
  'toString',
  '__proto__',
];
const value = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ minLength: 2000, maxLength: 60_000 }),
  fc.constantFrom(
    -1,
    0,
    65536,
    1e308,
    Number.MAX_SAFE_INTEGER,
    true,
    null,
    [],
    {},
    'custom',
    'implicit',
    'gmail',
    'a@b.example',
  ),
);

/** A near-valid message: a real message of each type with fields added, removed or retyped. */
const shaped = fc
  .tuple(fc.constantFrom(...TYPES), fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 6 }))
  .map(([type, rest]) => JSON.stringify({ type, ...rest }));

const deep = fc.integer({ min: 100, max: 20_000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`);

const frame = fc.oneof(
  { weight: 5, arbitrary: shaped.map((s) => ({ kind: 'text' as const, data: s })) },
  {
    weight: 2,
    arbitrary: fc.jsonValue({ maxDepth: 5 }).map((v) => ({ kind: 'text' as const, data: JSON.stringify(v) })),
  },
  { weight: 1, arbitrary: deep.map((s) => ({ kind: 'text' as const, data: s })) },
  {
    weight: 1,
    arbitrary: fc.string({ unit: 'binary', maxLength: 300 }).map((s) => ({ kind: 'text' as const, data: s })),
  },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => ({ kind: 'binary' as const, data: Buffer.from(b) })),
  },
  {
    weight: 1,
    arbitrary: fc.constant({ kind: 'bad-utf8' as const, data: Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0xff, 0x7d]) }),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 65 * 1024, max: 80 * 1024 })
      .map((n) => ({ kind: 'huge' as const, data: 'x'.repeat(n) })),
  },
);

const INTERNALS =
  /\n\s+at |\bat \S+ \(|file:\/\/|\/node_modules\/|\.ts:\d+|\bFST_[A-Z_]+|ZodError|TypeError|ReferenceError/;

test('generated hostile frames: answers fit the protocol, nothing internal, the connection stays usable', async () => {
  let probes = 0;
  await fc.assert(
    fc.asyncProperty(frame, async (f) => {
      if (f.kind === 'text') {
        const parsed = (() => {
          try {
            return ClientMessage.safeParse(JSON.parse(f.data));
          } catch {
            return null;
          }
        })();
        fc.pre(!(parsed?.success && parsed.data.type === 'scan'));
      }
      const seen = c.messages.length;
      if (f.kind === 'binary' || f.kind === 'bad-utf8') c.ws.send(f.data, { binary: f.kind === 'binary' });
      else c.sendRaw(f.data);
      const tooBig = Buffer.byteLength(f.data) > MAX_FRAME_BYTES;
      if (f.kind === 'bad-utf8' || tooBig) {
        // RFC 6455 §7.4.1: 1007 for text that is not UTF-8, 1009 for a frame over the limit
        assert.equal((await c.closed).code, tooBig ? 1009 : 1007);
        c = await fresh();
        return;
      }
      // a probe after the frame: answered in order, so every answer to the frame came before it
      const email = `probe${probes++}@example.test`;
      c.send({ type: 'quota', email });
      let quota = await c.next('quota');
      while (quota.email !== email) quota = await c.next('quota');
      for (const m of c.messages.slice(seen)) {
        if (m.type === 'error') assert.notEqual(m.code, 'INTERNAL', JSON.stringify(m));
        assert.doesNotMatch(JSON.stringify(m), INTERNALS);
      }
    }),
    fuzzParams(600),
  );
  const errors = t.logs.filter((l) => /"level":(50|60)/.test(l));
  assert.deepEqual(errors, [], 'nothing was logged as an error');
});
