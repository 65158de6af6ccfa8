/**
 * fetchHeaders on the lean connection against scripted servers on loopback TLS
 * (test/helpers/fake-imap.ts): the command shape, pipelined batches answered interleaved, the
 * in-flight window, a tagged NO/BAD, EXPUNGE during the fetch, a drop mid-literal, BYE, an
 * answer to no command, a consumer that throws, cancel and a stalled server. Failures must be
 * values, never throws or crashes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { closeFakeServers, fakeServer, guardFor, imapSession, msg, selected } from '../../test/helpers/fake-imap.ts';
import { trustTestCa } from '../../test/helpers/tls-ca.ts';
import { FETCH_ITEMS, fetchHeaders } from './fetch-reader.ts';
import { examine, signIn } from './lean-commands.ts';
import { connectLean, type LeanFailure } from './lean-imap.ts';

const ALL = [{ set: '1:*', first: 1 }];

describe('the lean connection against scripted servers', () => {
  before(() => trustTestCa());
  after(closeFakeServers);

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
});
