/**
 * The lean FETCH reader against a hostile server. First the tokenizer and the FETCH parser fed
 * byte streams directly: every split of the input, limits (huge literal sizes, endless lines),
 * unexpected untagged responses, items in any order, NIL, literal8, non-ASCII bytes. Then the
 * whole connection (lean-imap.ts, lean-commands.ts, fetchHeaders) against scripted fake servers
 * on loopback TLS (the test CA): a tagged NO/BAD, EXPUNGE during the fetch, a drop mid-literal,
 * BYE, an answer to no command, cancel, a stalled server, STARTTLS injection, sign-in variants.
 * Failures must be values, never throws or crashes, and never carry the password.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import tls from 'node:tls';
import { certPath, keyPath, trustTestCa } from '../../test/helpers/tls-ca.ts';
import { createOutboundGuard } from '../outbound/guard.ts';
import { FETCH_ITEMS, type FetchedHeaders, fetchHeaders, readFetch } from './fetch-reader.ts';
import {
  createTokenizer,
  DEFAULT_LIMITS,
  ImapProtocolError,
  type ImapResponse,
  literalSize,
  type TokenizerLimits,
} from './imap-tokenizer.ts';
import { examine, signIn } from './lean-commands.ts';
import { connectLean, type LeanFailure, type LeanImap } from './lean-imap.ts';
import { splitSet } from './uid-sets.ts';

const ALL = [{ set: '1:*', first: 1 }];
const b = (s: string) => Buffer.from(s, 'latin1');

function tokenize(chunks: Buffer[], limits: TokenizerLimits = DEFAULT_LIMITS): ImapResponse[] {
  const out: ImapResponse[] = [];
  const t = createTokenizer(limits, (r) => out.push(r));
  for (const c of chunks) t.push(c);
  return out;
}

/** A response as comparable text: parts and literals in order. */
const show = (r: ImapResponse) =>
  r.texts.map((t, i) => t.toString('latin1') + (i < r.literals.length ? `[${r.literals[i]!.toString('latin1')}]` : ''));

const messages = (rs: ImapResponse[]) => rs.map(readFetch).filter((m): m is FetchedHeaders => typeof m === 'object');

// A server's answer with everything odd RFC 3501 allows: items in any order, unsolicited data,
// non-ASCII bytes, NIL, a quoted string, literal8, an origin, a FETCH with no UID.
const H1 = 'From: A <a@x.example>\r\nList-Unsubscribe: <https://x.example/u>\r\n\r\n';
const H2 = Buffer.concat([b('Subject: caf'), Buffer.from([0xc3, 0xa9, 0xff]), b('\r\n\r\n')]);
const STREAM = Buffer.concat([
  b(`* 1 FETCH (UID 10 FLAGS (\\Seen) BODY[HEADER.FIELDS (FROM LIST-UNSUBSCRIBE)] {${H1.length}}\r\n${H1})\r\n`),
  b('* 3 EXISTS\r\n'),
  b(`* 2 FETCH (FLAGS () UID 11 BODY[HEADER.FIELDS (SUBJECT)] {${H2.length}}\r\n`),
  H2,
  b(')\r\n'),
  Buffer.concat([b('* OK [ALERT] syst'), Buffer.from([0xe8, 0x6d, 0x65]), b('\r\n')]),
  b('* 1 EXPUNGE\r\n'),
  b('* 2 FETCH (BODY[HEADER.FIELDS (FROM)] {5}\r\nabcde UID 12 FLAGS (\\Answered \\SEEN))\r\n'),
  b('* 4 FETCH (FLAGS (\\Seen))\r\n'),
  b('* 5 FETCH (UID 14 MODSEQ (12345) BODY[HEADER.FIELDS (FROM)] NIL FLAGS (\\Seenx))\r\n'),
  b('* 6 FETCH (UID 15 BODY[HEADER.FIELDS (FROM)]<0> "q\\"uoted" X-GM-LABELS ("a b" {2}\r\nxy))\r\n'),
  b('* 7 FETCH (UID 16 BINARY[1] ~{3}\r\nabc BODY[HEADER.FIELDS (FROM)] {0}\r\n)\r\n'),
  b('* 8 FETCH (BODY[HEADER.FIELDS (FROM)] {2}\r\nab)\r\n'),
  b('* 9 FeTcH (uid 17 body[HEADER.FIELDS (FROM)] {1}\nz)\n'),
  b('A1 OK done\r\n'),
]);
const EXPECTED: FetchedHeaders[] = [
  { uid: 10, seen: true, headers: b(H1) },
  { uid: 11, seen: false, headers: H2 },
  { uid: 12, seen: true, headers: b('abcde') },
  { uid: 14, seen: false, headers: Buffer.alloc(0) },
  { uid: 15, seen: false, headers: b('q"uoted') },
  { uid: 16, seen: false, headers: Buffer.alloc(0) },
  { uid: 17, seen: false, headers: b('z') },
];

describe('tokenizer and FETCH parser', () => {
  test('reads every item shape, ignores unsolicited responses, counts a FETCH without UID as malformed', () => {
    const rs = tokenize([STREAM]);
    assert.deepEqual(messages(rs), EXPECTED);
    assert.deepEqual(
      rs.map(readFetch).filter((m) => m === 'malformed'),
      ['malformed'],
    );
    assert.equal(show(rs.at(-1)!)[0], 'A1 OK done');
  });

  test('the same responses whatever the chunking: every split point, byte by byte', () => {
    const whole = tokenize([STREAM]).map(show);
    for (let i = 0; i <= STREAM.length; i++) {
      const split = tokenize([STREAM.subarray(0, i), STREAM.subarray(i)]);
      assert.deepEqual(split.map(show), whole, `split at ${i}`);
      assert.deepEqual(messages(split), EXPECTED, `split at ${i}`);
    }
    const bytes = Array.from({ length: STREAM.length }, (_, i) => STREAM.subarray(i, i + 1));
    assert.deepEqual(tokenize(bytes).map(show), whole);
  });

  test('a declared literal over the cap is an error at once, never an allocation', () => {
    for (const size of ['99999999999', '4294967296000000', String(DEFAULT_LIMITS.maxLiteral + 1)]) {
      const t = createTokenizer(DEFAULT_LIMITS, () => assert.fail('no response expected'));
      assert.throws(() => t.push(b(`* 1 FETCH (UID 1 BODY[HEADER] {${size}}\r\n`)), ImapProtocolError);
      assert.equal(t.pending(), 0);
      // once failed, it stays failed
      assert.throws(() => t.push(b('A1 OK\r\n')), ImapProtocolError);
    }
  });

  test('a literal over keepLiteral is read to its end but only its start is kept', () => {
    const limits = { ...DEFAULT_LIMITS, keepLiteral: 10 };
    const body = 'x'.repeat(50_000);
    const rs = tokenize(
      [
        b(`* 1 FETCH (UID 5 FLAGS () BODY[HEADER] {${body.length}}\r\n`),
        b(body),
        b(')\r\n* 2 FETCH (UID 6 FLAGS () BODY[HEADER] {1}\r\nq)\r\n'),
      ],
      limits,
    );
    assert.deepEqual(messages(rs), [
      { uid: 5, seen: false, headers: b('x'.repeat(10)) },
      { uid: 6, seen: false, headers: b('q') },
    ]);
  });

  test('a line that never ends (missing CRLF) hits maxLine and fails; memory stays bounded', () => {
    const t = createTokenizer(DEFAULT_LIMITS, () => {});
    const block = b('A'.repeat(8192));
    let failed = false;
    for (let i = 0; i < 100 && !failed; i++) {
      try {
        t.push(block);
        assert.ok(t.pending() <= DEFAULT_LIMITS.maxLine);
      } catch (err) {
        assert.ok(err instanceof ImapProtocolError);
        failed = true;
      }
    }
    assert.ok(failed, 'the endless line was refused');
  });

  test('too many literals in one response, and text spread over literals, are bounded too', () => {
    const many = `* 1 FETCH (${Array.from({ length: 70 }, (_, i) => `X${i} {1}\r\na`).join(' ')})\r\n`;
    assert.throws(() => tokenize([b(many)]), ImapProtocolError);
    const long = `* 1 FETCH (${Array.from({ length: 60 }, () => `${'Y'.repeat(2000)} {1}\r\na`).join(' ')})\r\n`;
    assert.throws(() => tokenize([b(long)]), ImapProtocolError);
  });

  test('literal markers: {n}, {n+}, ~{n}; anything else is text', () => {
    assert.equal(literalSize(b('x {12}')), 12);
    assert.equal(literalSize(b('x {12+}')), 12);
    assert.equal(literalSize(b('x ~{3}')), 3);
    assert.equal(literalSize(b('x {}')), -1);
    assert.equal(literalSize(b('x {1a}')), -1);
    assert.equal(literalSize(b('x 12}')), -1);
    assert.equal(literalSize(b('{12345678901}')), Number.MAX_SAFE_INTEGER);
  });

  test('a response that is not a FETCH, or a FETCH of something else, is not a message', () => {
    for (const line of ['* 12 EXISTS', '* OK [UIDNEXT 5]', '* 1 FETCH', '* 1 FETCHX (UID 1)', '* x FETCH (UID 1)']) {
      assert.equal(readFetch({ texts: [b(line)], literals: [] }), 'other', line);
    }
    for (const line of [
      '* 1 FETCH (UID 0 BODY[X] NIL)',
      '* 1 FETCH (UID 99999999999 BODY[X] NIL)',
      '* 1 FETCH (UID 1 BODY[X NIL)',
    ]) {
      assert.equal(readFetch({ texts: [b(line)], literals: [] }), 'malformed', line);
    }
  });

  test('UID sets longer than a command may be are split at commas', () => {
    const set = Array.from({ length: 3000 }, (_, i) => `${i * 3 + 1}`).join(',');
    const parts = splitSet(set, 1000);
    assert.ok(parts.every((p) => p.length <= 1000));
    assert.equal(parts.join(','), set);
  });
});

// ---- the whole connection against scripted servers

type Handler = (line: string, s: tls.TLSSocket | net.Socket, raw: Buffer) => void;

interface FakeServer {
  port: number;
  received: Buffer[];
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Reads client lines (and the literals the client sends after a '+'), hands each line to `on`. */
function lines(s: net.Socket, received: Buffer[], on: Handler): void {
  let buf = Buffer.alloc(0);
  let literal = 0;
  s.on('data', (d: Buffer) => {
    received.push(d);
    buf = Buffer.concat([buf, d]);
    for (;;) {
      if (literal > 0) {
        if (buf.length < literal) return;
        buf = buf.subarray(literal);
        literal = 0;
      }
      const nl = buf.indexOf(10);
      if (nl < 0) return;
      const raw = buf.subarray(0, nl + 1);
      const line = raw.toString('latin1').replace(/\r?\n$/, '');
      buf = buf.subarray(nl + 1);
      const m = /\{(\d+)(\+?)\}$/.exec(line);
      if (m) {
        literal = Number(m[1]);
        if (!m[2]) s.write('+ go ahead\r\n');
      }
      on(line, s, raw);
    }
  });
  s.on('error', () => {});
}

async function fakeServer(
  on: Handler,
  opts: { greeting?: string; plain?: boolean; onConnect?: (s: net.Socket) => void } = {},
): Promise<FakeServer> {
  const received: Buffer[] = [];
  let closedResolve: () => void = () => {};
  const closed = new Promise<void>((r) => {
    closedResolve = r;
  });
  const sockets = new Set<net.Socket>();
  const onSocket = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => {
      sockets.delete(s);
      closedResolve();
    });
    if (opts.onConnect) opts.onConnect(s);
    else {
      s.write(`${opts.greeting ?? '* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=PLAIN LITERAL+] fake ready'}\r\n`);
      lines(s, received, on);
    }
  };
  const server = opts.plain
    ? net.createServer(onSocket)
    : tls.createServer({ key: readFileSync(keyPath), cert: readFileSync(certPath) }, onSocket);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    closed,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A standard session up to EXAMINE; `fetch` answers the FETCH command. */
function imapSession(fetch: (tag: string, s: net.Socket) => void): Handler {
  return (line, s) => {
    const [tag, cmd] = line.split(' ');
    if (cmd === 'AUTHENTICATE' || cmd === 'LOGIN') s.write(`${tag} OK signed in\r\n`);
    else if (cmd === 'EXAMINE')
      s.write(`* 3 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n* OK [UIDNEXT 4] ok\r\n${tag} OK [READ-ONLY] done\r\n`);
    else if (cmd === 'UID') fetch(tag!, s);
    else if (tag) s.write(`${tag} BAD unknown\r\n`);
  };
}

const TIMEOUTS = { connectMs: 3000, socketMs: 3000 };
const servers: FakeServer[] = [];
const guardFor = (port: number) => createOutboundGuard({ allowHosts: [`127.0.0.1:${port}`] });

async function open(server: FakeServer, tlsMode: 'implicit' | 'starttls' = 'implicit', signal?: AbortSignal) {
  servers.push(server);
  const guard = guardFor(server.port);
  const c = await connectLean({ host: '127.0.0.1', port: server.port, tls: tlsMode }, guard, TIMEOUTS, signal);
  await guard.close();
  return c;
}

async function selected(server: FakeServer, signal?: AbortSignal): Promise<LeanImap> {
  const c = await open(server, 'implicit', signal);
  assert.ok(c.ok, 'connected');
  assert.deepEqual(await signIn(c.conn, { user: 'u@x.example', password: 'pw' }), { ok: true });
  const box = await examine(c.conn, 'INBOX');
  assert.ok(box.ok);
  assert.deepEqual([box.exists, box.uidValidity, box.uidNext], [3, 7n, 4]);
  return c.conn;
}

const msg = (seq: number, uid: number, h: string) =>
  `* ${seq} FETCH (UID ${uid} FLAGS () BODY[HEADER.FIELDS (FROM)] {${h.length}}\r\n${h})\r\n`;

describe('the lean connection against scripted servers', () => {
  before(() => trustTestCa());
  after(async () => {
    for (const s of servers) await s.close();
  });

  test('the FETCH command is the one shape asked for, and a clean answer streams every message', async () => {
    let command = '';
    const server = await fakeServer(
      imapSession((tag, s) => {
        s.write(`${msg(1, 1, 'From: a\r\n\r\n')}${msg(2, 2, 'From: b\r\n\r\n')}${tag} OK done\r\n`);
      }),
    );
    server.received.length = 0;
    const conn = await selected(server);
    const got: number[] = [];
    const r = await fetchHeaders(conn, [{ set: '1:3', first: 1 }], (m) => got.push(m.uid));
    assert.deepEqual(r, { ok: true, messages: 2, malformed: 0 });
    assert.deepEqual(got, [1, 2]);
    command = Buffer.concat(server.received).toString('latin1');
    assert.match(command, new RegExp(`L\\d+ UID FETCH 1:3 ${FETCH_ITEMS.replace(/[()[\]]/g, '\\$&')}\r\n`));
    assert.match(command, /EXAMINE "INBOX"/);
    conn.close();
  });

  test('pipelined batches answered interleaved or out of order are released in batch order', async () => {
    const fetches: string[] = [];
    let most = 0;
    const server = await fakeServer(
      imapSession((tag, s) => {
        fetches.push(tag);
        most = Math.max(most, fetches.length);
        if (fetches.length < 3) return; // answer once three commands are waiting
        const [a, b2, c] = fetches.splice(0);
        // c's messages first, then a's and b's interleaved; the OKs in reverse order too
        s.write(`${msg(9, 9, 'From: c1\r\n\r\n')}${msg(4, 4, 'From: b1\r\n\r\n')}${msg(1, 1, 'From: a1\r\n\r\n')}`);
        s.write(`${msg(5, 5, 'From: b2\r\n\r\n')}${msg(2, 2, 'From: a2\r\n\r\n')}${msg(10, 10, 'From: c2\r\n\r\n')}`);
        s.write(`${c} OK\r\n${b2} OK\r\n${a} OK\r\n`);
      }),
    );
    const conn = await selected(server);
    const got: number[] = [];
    const batches = [
      { set: '1:3', first: 1 },
      { set: '4:6', first: 4 },
      { set: '7:12', first: 7 },
    ];
    assert.deepEqual(await fetchHeaders(conn, batches, (m) => got.push(m.uid)), {
      ok: true,
      messages: 6,
      malformed: 0,
    });
    assert.deepEqual(got, [1, 2, 4, 5, 9, 10]);
    conn.close();
  });

  test('at most `window` FETCH commands are in flight', async () => {
    const waiting: string[] = [];
    let most = 0;
    let timer: NodeJS.Timeout | undefined;
    const server = await fakeServer(
      imapSession((tag, s) => {
        waiting.push(tag);
        most = Math.max(most, waiting.length);
        // answer once 3 wait, or after 50 ms without another command
        const answer = () =>
          s.write(
            waiting
              .splice(0)
              .map((t) => `${t} OK\r\n`)
              .join(''),
          );
        clearTimeout(timer);
        if (waiting.length >= 3) setImmediate(answer);
        else timer = setTimeout(answer, 50);
      }),
    );
    const conn = await selected(server);
    const batches = Array.from({ length: 20 }, (_, i) => ({ set: `${i * 10 + 1}:${i * 10 + 10}`, first: i * 10 + 1 }));
    assert.deepEqual(await fetchHeaders(conn, batches, () => {}, 3), { ok: true, messages: 0, malformed: 0 });
    assert.equal(most, 3);
    conn.close();
  });

  test('a tagged NO or BAD ends the fetch as REFUSED; messages before it stay delivered', async () => {
    for (const answer of ['NO [SERVERBUG] oops', 'BAD syntax']) {
      const server = await fakeServer(
        imapSession((tag, s) => s.write(`${msg(1, 1, 'From: a\r\n\r\n')}${tag} ${answer}\r\n`)),
      );
      const conn = await selected(server);
      const got: number[] = [];
      const r = await fetchHeaders(conn, ALL, (m) => got.push(m.uid));
      assert.equal((r as LeanFailure).code, 'REFUSED');
      assert.deepEqual(got, [1]);
      conn.close();
    }
  });

  test('EXPUNGE, EXISTS and flag changes during the fetch are ignored', async () => {
    const server = await fakeServer(
      imapSession((tag, s) => {
        s.write(msg(1, 1, 'From: a\r\n\r\n'));
        s.write('* 2 EXPUNGE\r\n* 5 EXISTS\r\n* 1 FETCH (FLAGS (\\Deleted))\r\n* OK still here\r\n');
        s.write(`${msg(2, 3, 'From: c\r\n\r\n')}${tag} OK done\r\n`);
      }),
    );
    const conn = await selected(server);
    const got: number[] = [];
    assert.deepEqual(await fetchHeaders(conn, ALL, (m) => got.push(m.uid)), {
      ok: true,
      messages: 2,
      malformed: 0,
    });
    assert.deepEqual(got, [1, 3]);
    conn.close();
  });

  test('the connection dropping in the middle of a literal is CLOSED, after the messages before it', async () => {
    const server = await fakeServer(
      imapSession((_tag, s) => {
        s.write(
          `${msg(1, 1, 'From: a\r\n\r\n')}* 2 FETCH (UID 2 FLAGS () BODY[HEADER.FIELDS (FROM)] {100}\r\nFrom: tru`,
        );
        setTimeout(() => s.destroy(), 20);
      }),
    );
    const conn = await selected(server);
    const got: number[] = [];
    const r = await fetchHeaders(conn, ALL, (m) => got.push(m.uid));
    assert.equal((r as LeanFailure).code, 'CLOSED');
    assert.deepEqual(got, [1]);
  });

  test('BYE, an answer to no command, and a huge literal are failures, not crashes', async () => {
    const cases: [string, string][] = [
      ['* BYE shutting down\r\n', 'CLOSED'],
      ['Z9 OK what command\r\n', 'PROTOCOL'],
      ['* 1 FETCH (UID 1 FLAGS () BODY[HEADER.FIELDS (FROM)] {99999999999}\r\n', 'PROTOCOL'],
    ];
    for (const [answer, code] of cases) {
      const server = await fakeServer(
        imapSession((_tag, s) => {
          s.write(answer);
          if (answer.startsWith('* BYE')) s.end();
        }),
      );
      const conn = await selected(server);
      const r = await fetchHeaders(conn, ALL, () => {});
      assert.equal((r as LeanFailure).code, code, answer);
    }
  });

  test('a throw in the consumer fails the connection as INTERNAL instead of escaping', async () => {
    const server = await fakeServer(imapSession((tag, s) => s.write(`${msg(1, 1, 'x\r\n\r\n')}${tag} OK\r\n`)));
    const conn = await selected(server);
    const r = await fetchHeaders(conn, [{ set: '1', first: 1 }], () => {
      throw new Error('consumer bug');
    });
    assert.equal((r as LeanFailure).code, 'INTERNAL');
  });

  test('cancel destroys the socket at once; a stalled server hits the socket timeout', async () => {
    const stalled = await fakeServer(imapSession(() => {}));
    const ctl = new AbortController();
    const conn = await selected(stalled, ctl.signal);
    const started = Date.now();
    const pending = fetchHeaders(conn, ALL, () => {});
    setTimeout(() => ctl.abort(), 50);
    assert.equal(((await pending) as LeanFailure).code, 'ABORTED');
    assert.ok(Date.now() - started < 1000);
    await stalled.closed; // the server saw the socket go

    const slow = await fakeServer(imapSession(() => {}));
    servers.push(slow);
    const guard = guardFor(slow.port);
    const c = await connectLean({ host: '127.0.0.1', port: slow.port, tls: 'implicit' }, guard, {
      connectMs: 1000,
      socketMs: 200,
    });
    await guard.close();
    assert.ok(c.ok);
    await signIn(c.conn, { user: 'u', password: 'p' });
    await examine(c.conn, 'INBOX');
    assert.equal(((await fetchHeaders(c.conn, ALL, () => {})) as LeanFailure).code, 'TIMEOUT');
  });

  test('sign-in: SASL-IR PLAIN when offered; LOGIN with quoted strings or a synchronizing literal otherwise', async () => {
    const password = 'pä"ss\\wörd';
    const seen: string[] = [];
    const plain = await fakeServer((line, s) => {
      seen.push(line);
      const [tag] = line.split(' ');
      s.write(`${tag} OK\r\n`);
    });
    const a = await open(plain);
    assert.ok(a.ok);
    assert.deepEqual(await signIn(a.conn, { user: 'u@x.example', password }), { ok: true });
    const [, , mech, ir] = seen[0]!.split(' ');
    assert.equal(mech, 'PLAIN');
    assert.equal(Buffer.from(ir!, 'base64').toString('utf8'), `\0u@x.example\0${password}`);
    a.conn.close();

    let loginTag = '';
    const login = await fakeServer(
      (line, s) => {
        const [tag, cmd] = line.split(' ');
        if (cmd === 'LOGIN') loginTag = tag!;
        // the command ends on the line that does not announce another literal
        if (loginTag && !/\{\d+\}$/.test(line)) s.write(`${loginTag} OK\r\n`);
      },
      { greeting: '* OK [CAPABILITY IMAP4rev1] no SASL' },
    );
    const c = await open(login);
    assert.ok(c.ok);
    assert.deepEqual(await signIn(c.conn, { user: 'u@x.example', password }), { ok: true });
    const sent = Buffer.concat(login.received).toString('utf8');
    const utf8 = Buffer.byteLength(password);
    assert.match(sent, new RegExp(`LOGIN "u@x\\.example" \\{${utf8}\\}\r\n`), 'a literal, announced');
    assert.ok(sent.includes(`${password}\r\n`), 'then the bytes, after the +');
    c.conn.close();

    const quoted = await fakeServer(
      (line, s) => {
        const [tag] = line.split(' ');
        s.write(`${tag} NO [AUTHENTICATIONFAILED] wrong\r\n`);
      },
      { greeting: '* OK [CAPABILITY IMAP4rev1] no SASL' },
    );
    const q = await open(quoted);
    assert.ok(q.ok);
    const r = await signIn(q.conn, { user: 'u', password: 'pa"ss\\' });
    assert.equal((r as LeanFailure).code, 'AUTH_FAILED');
    assert.ok(!JSON.stringify(r).includes('pa"ss'), 'no password in the failure');
    assert.match(Buffer.concat(quoted.received).toString('latin1'), /LOGIN "u" "pa\\"ss\\\\"\r\n/);
    q.conn.close();
  });

  test('XOAUTH2: an error continuation gets the empty answer, then AUTH_FAILED', async () => {
    const seen: string[] = [];
    const server = await fakeServer(
      (line, s) => {
        seen.push(line);
        const [tag] = line.split(' ');
        if (tag?.startsWith('L')) s.write(`+ ${Buffer.from('{"status":"401"}').toString('base64')}\r\n`);
        else if (line === '') s.write(`L${seen.length - 1} NO [AUTHENTICATIONFAILED] bad token\r\n`);
      },
      { greeting: '* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=XOAUTH2] ready' },
    );
    const c = await open(server);
    assert.ok(c.ok);
    const r = await signIn(c.conn, { user: 'u@x.example', accessToken: 'tok-123' });
    assert.equal((r as LeanFailure).code, 'AUTH_FAILED');
    assert.ok(!JSON.stringify(r).includes('tok-123'));
    assert.equal(seen[1], '', 'the empty answer ended the exchange');
    c.conn.close();
  });

  test('STARTTLS: required; clear-text data after its OK is refused before any credentials', async () => {
    const injecting = await fakeServer(() => {}, {
      plain: true,
      onConnect: (s) => {
        s.write('* OK [CAPABILITY IMAP4rev1 STARTTLS] plain\r\n');
        s.once('data', (d) => {
          const tag = d.toString().split(' ')[0];
          s.write(`${tag} OK Begin TLS\r\n* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] injected\r\n`);
        });
      },
    });
    const r = await open(injecting, 'starttls');
    assert.equal((r as LeanFailure).code, 'PROTOCOL');

    const refusing = await fakeServer((line, s) => s.write(`${line.split(' ')[0]} NO not here\r\n`), {
      plain: true,
      greeting: '* OK [CAPABILITY IMAP4rev1] plain',
    });
    assert.equal(((await open(refusing, 'starttls')) as LeanFailure).code, 'TLS_FAILED');
  });

  test('certificates are verified against the host name; the guard is asked first', async () => {
    const server = await fakeServer(() => {});
    servers.push(server);
    const lying = createOutboundGuard({
      allowHosts: [`imap.wrong.example:${server.port}`],
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const r = await connectLean({ host: 'imap.wrong.example', port: server.port, tls: 'implicit' }, lying, TIMEOUTS);
    await lying.close();
    assert.equal((r as LeanFailure).code, 'TLS_FAILED');

    const strict = createOutboundGuard();
    const refused = await connectLean({ host: '127.0.0.1', port: server.port, tls: 'implicit' }, strict, TIMEOUTS);
    await strict.close();
    assert.equal((refused as LeanFailure).code, 'HOST_NOT_ALLOWED');
  });

  test('a greeting that is not OK, or a server that never greets, fails cleanly', async () => {
    const bye = await fakeServer(() => {}, { greeting: '* BYE too busy' });
    assert.equal(((await open(bye)) as LeanFailure).code, 'REFUSED');
    const silent = await fakeServer(() => {}, { onConnect: () => {} });
    servers.push(silent);
    const guard = guardFor(silent.port);
    const r = await connectLean({ host: '127.0.0.1', port: silent.port, tls: 'implicit' }, guard, {
      connectMs: 200,
      socketMs: 200,
    });
    await guard.close();
    assert.equal((r as LeanFailure).code, 'TIMEOUT');
  });
});
