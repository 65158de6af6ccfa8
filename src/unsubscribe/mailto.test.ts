/**
 * createMailtoSender against real SMTP servers (smtp-server) on 127.0.0.1: implicit TLS and
 * STARTTLS, with the test CA's certificate verified as in production, PLAIN/LOGIN auth checked,
 * and every message kept raw. TCP connections are counted at the socket, so "no connection" and
 * "the pool reused its connections" are measured.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { test } from 'node:test';
import PostalMime from 'postal-mime';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { certPath, keyPath, trustTestCa } from '../../test/helpers/tls-ca.ts';
import type { MailtoMethod } from '../mailbox/types.ts';
import { createOutboundGuard, type LookupFn } from '../outbound/guard.ts';
import { createMailtoSender, type MailtoSenderOptions } from './mailto.ts';

trustTestCa();

type T = { after(fn: () => unknown): void };
type Delivered = { mailFrom: string; rcptTo: string[]; raw: string };
type Sink = { port: number; delivered: Delivered[]; connections: () => number; logins: () => number };

const USER = 'person@mail.example';
const PASSWORD = 'correct horse battery staple';
const tlsFiles = { cert: readFileSync(certPath), key: readFileSync(keyPath) };

async function smtpSink(t: T, tls: 'implicit' | 'starttls', extra: Partial<SMTPServerOptions> = {}): Promise<Sink> {
  const delivered: Delivered[] = [];
  let connections = 0;
  let logins = 0;
  const server = new SMTPServer({
    ...tlsFiles,
    secure: tls === 'implicit',
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    closeTimeout: 200,
    onAuth(auth, _session, cb) {
      logins += 1;
      if (auth.username === USER && auth.password === PASSWORD) cb(null, { user: USER });
      else cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        delivered.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        cb();
      });
    },
    ...extra,
  });
  // A client that drops a handshake it cannot verify (the TLS test) is an 'error' here, not a crash.
  server.on('error', () => {});
  server.server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.server.address() as AddressInfo;
  return { port, delivered, connections: () => connections, logins: () => logins };
}

function sender(t: T, sink: { port: number }, tls: 'implicit' | 'starttls', over: Partial<MailtoSenderOptions> = {}) {
  const guard = over.guard ?? createOutboundGuard({ allowHosts: [`127.0.0.1:${sink.port}`] });
  const s = createMailtoSender({
    endpoint: { host: '127.0.0.1', port: sink.port, tls },
    user: USER,
    password: PASSWORD,
    from: USER,
    guard,
    timeoutMs: 5000,
    ...over,
  });
  t.after(() => s.close());
  return s;
}

const mailto = (to: string, subject: string | null, body: string | null): MailtoMethod => ({
  uri: `mailto:${to}`,
  to,
  subject,
  body,
});

for (const tls of ['implicit', 'starttls'] as const) {
  test(`${tls}: the message goes from the person's address to the mailto address with its subject and body`, async (t) => {
    const sink = await smtpSink(t, tls);
    const s = sender(t, sink, tls);
    const body = 'Remove news+tag@list.example from list 42 + all others.\r\nThanks';
    const result = await s.send(mailto('leave+abc123@list.example', 'unsubscribe 42+x', body));
    assert.deepEqual(result, {
      ok: true,
      detail: `An unsubscribe email was sent from ${USER} to leave+abc123@list.example.`,
    });
    assert.equal(sink.delivered.length, 1);
    const [d] = sink.delivered;
    assert.equal(d?.mailFrom, USER, 'SMTP MAIL FROM is the person');
    assert.deepEqual(d?.rcptTo, ['leave+abc123@list.example'], 'exactly one recipient');
    const mail = await PostalMime.parse(d?.raw ?? '');
    assert.equal(mail.from?.address, USER);
    assert.deepEqual(
      mail.to?.map((a) => a.address),
      ['leave+abc123@list.example'],
    );
    assert.equal(mail.cc, undefined);
    assert.equal(mail.subject, 'unsubscribe 42+x');
    assert.equal(mail.text?.replace(/\r?\n$/, '').replace(/\r\n/g, '\n'), body.replace(/\r\n/g, '\n'));
    assert.ok(d?.raw.includes('news+tag@list.example'), 'a + in the body stays a literal +');
    assert.match(mail.messageId ?? '', /^<[0-9a-f-]{36}@mail\.example>$/);
    assert.equal(
      mail.headers.some((h) => h.key === 'auto-submitted'),
      false,
      'a person asked for this mail (RFC 3834)',
    );
  });
}

test('without subject or body the defaults are sent', async (t) => {
  const sink = await smtpSink(t, 'implicit');
  const result = await sender(t, sink, 'implicit').send(mailto('unsub@list.example', null, null));
  assert.equal(result.ok, true);
  const mail = await PostalMime.parse(sink.delivered[0]?.raw ?? '');
  // The defaults docs/unsubscribe.md promises.
  assert.equal(mail.subject, 'unsubscribe');
  assert.equal(mail.text?.trim(), 'Please unsubscribe me from this list.');
});

test('a wrong password is auth, and the password appears nowhere in the outcome', async (t) => {
  const sink = await smtpSink(t, 'implicit');
  const wrong = 'hunter2-wrong-password';
  const result = await sender(t, sink, 'implicit', { password: wrong }).send(mailto('u@list.example', null, null));
  assert.equal(!result.ok && result.reason, 'auth');
  assert.match(result.detail, /refused the sign-in for person@mail\.example/);
  const text = JSON.stringify(result);
  for (const secret of [wrong, Buffer.from(wrong).toString('base64'), PASSWORD]) assert.ok(!text.includes(secret));
  assert.equal(sink.delivered.length, 0);
});

test('after a refused sign-in, later sends report it without logging in again', async (t) => {
  const sink = await smtpSink(t, 'implicit');
  const s = sender(t, sink, 'implicit', { password: 'wrong' });
  const first = await s.send(mailto('a@list.example', null, null));
  const second = await s.send(mailto('b@list.example', null, null));
  assert.deepEqual([first.ok || first.reason, second.ok || second.reason], ['auth', 'auth']);
  assert.equal(sink.logins(), 1);
});

test('a refused recipient is rejected with the server reply, and an echoed password is redacted', async (t) => {
  const sink = await smtpSink(t, 'implicit', {
    onRcptTo(address, _session, cb) {
      const err = new Error(`No such list ${address.address}; you said ${PASSWORD}`);
      cb(Object.assign(err, { responseCode: 550 }));
    },
  });
  const result = await sender(t, sink, 'implicit').send(mailto('gone@list.example', null, null));
  assert.equal(!result.ok && result.reason, 'rejected');
  assert.match(result.detail, /refused the message \(.*550.*No such list gone@list\.example.*\[redacted\]/);
  assert.ok(!result.detail.includes(PASSWORD));
});

test('a closed port is connect', async (t) => {
  const port = await freePort();
  const result = await sender(t, { port }, 'implicit').send(mailto('u@list.example', null, null));
  assert.deepEqual(result, {
    ok: false,
    reason: 'connect',
    detail: `Could not connect to 127.0.0.1:${port} (connection refused).`,
  });
});

test('a server that accepts the connection and never greets is a timeout within timeoutMs', async (t) => {
  const silent = createServer(() => {
    /* never say 220 */
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => silent.close(resolve)));
  const { port } = silent.address() as AddressInfo;
  const started = Date.now();
  const result = await sender(t, { port }, 'starttls', { timeoutMs: 400 }).send(mailto('u@list.example', null, null));
  const elapsed = Date.now() - started;
  assert.deepEqual(result, {
    ok: false,
    reason: 'timeout',
    detail: `127.0.0.1:${port} did not answer within 0.4 seconds.`,
  });
  assert.ok(elapsed >= 390 && elapsed < 2000, `took ${elapsed} ms`);
});

test('a host the guard refuses is blocked for every send, and the sink sees no connection', async (t) => {
  const sink = await smtpSink(t, 'implicit');
  const guard = createOutboundGuard(); // production: no allow list, loopback refused
  const s = sender(t, sink, 'implicit', { guard });
  for (let i = 0; i < 3; i++) {
    const result = await s.send(mailto('u@list.example', null, null));
    assert.equal(!result.ok && result.reason, 'blocked');
    assert.match(result.detail, /127\.0\.0\.1:\d+ is a private or reserved address/);
  }
  assert.equal(sink.connections(), 0);
});

test('the connection is pinned to the checked address and TLS is verified against the host name', async (t) => {
  const sink = await smtpSink(t, 'implicit');
  const asked: string[] = [];
  const lookup: LookupFn = async (host) => {
    asked.push(host);
    return [{ address: '127.0.0.1', family: 4 }];
  };
  const allowHosts = [`localhost:${sink.port}`, `mail.test:${sink.port}`];
  const guard = createOutboundGuard({ allowHosts, lookup });
  // `localhost` is on the certificate: verified and delivered, resolved once for several sends.
  const good = sender(t, sink, 'implicit', {
    guard,
    endpoint: { host: 'localhost', port: sink.port, tls: 'implicit' },
  });
  for (let i = 0; i < 3; i++) assert.equal((await good.send(mailto('u@list.example', null, null))).ok, true);
  assert.deepEqual(asked, ['localhost']);
  // `mail.test` resolves to the same address but is not on the certificate: nothing is sent.
  const bad = sender(t, sink, 'implicit', { guard, endpoint: { host: 'mail.test', port: sink.port, tls: 'implicit' } });
  const result = await bad.send(mailto('u@list.example', null, null));
  assert.equal(!result.ok && result.reason, 'tls');
  assert.equal(sink.delivered.length, 3);
});

test('STARTTLS is required: a server that refuses it never sees the password', async (t) => {
  const sink = await smtpSink(t, 'starttls', { disabledCommands: ['STARTTLS'], allowInsecureAuth: true });
  const result = await sender(t, sink, 'starttls').send(mailto('u@list.example', null, null));
  assert.equal(!result.ok && result.reason, 'tls');
  assert.match(result.detail, /STARTTLS/);
  assert.equal(sink.logins(), 0);
  assert.equal(sink.delivered.length, 0);
});

test('several sends share pooled connections: at most maxConnections are opened', async (t) => {
  const sink = await smtpSink(t, 'implicit');
  const s = sender(t, sink, 'implicit', { maxConnections: 2 });
  const batch = (n: number) =>
    Promise.all(Array.from({ length: n }, (_, i) => s.send(mailto(`list${i}@list.example`, `stop ${i}`, null))));
  const first = await batch(6);
  assert.ok(first.every((r) => r.ok));
  const second = await batch(3);
  assert.ok(second.every((r) => r.ok));
  assert.equal(sink.delivered.length, 9);
  assert.ok(sink.connections() <= 2, `${sink.connections()} connections`);
  assert.ok(sink.logins() <= 2, `${sink.logins()} logins`);
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
