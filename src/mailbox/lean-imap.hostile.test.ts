/**
 * Connecting and signing in on the lean connection against scripted servers
 * (test/helpers/fake-imap.ts): SASL-IR PLAIN, LOGIN with quoted strings or a literal, XOAUTH2
 * error continuations, STARTTLS injection, certificate and guard checks, bad or missing
 * greetings. Failures must be values and never carry the password or token.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { closeFakeServers, fakeServer, guardFor, open, TIMEOUTS } from '../../test/helpers/fake-imap.ts';
import { trustTestCa } from '../../test/helpers/tls-ca.ts';
import { createOutboundGuard } from '../outbound/guard.ts';
import { signIn } from './lean-commands.ts';
import { connectLean, type LeanFailure } from './lean-imap.ts';

describe('the lean connection signing in against scripted servers', () => {
  before(() => trustTestCa());
  after(closeFakeServers);

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
    const guard = guardFor(silent.port);
    const r = await connectLean({ host: '127.0.0.1', port: silent.port, tls: 'implicit' }, guard, {
      connectMs: 200,
      socketMs: 200,
    });
    await guard.close();
    assert.equal((r as LeanFailure).code, 'TIMEOUT');
  });
});
