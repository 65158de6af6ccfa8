/**
 * One sign-in per attempt, against a real Dovecot behind a TCP relay that counts connections:
 * a wrong password opens one connection and costs one failed login; only a sign-in that worked
 * opens the scan's second (lean) connection.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listMessages } from '../../test/fixtures/list-mail.ts';
import { type Dovecot, startDovecot } from '../../test/helpers/dovecot.ts';
import { startTcpRelay, type TcpRelay } from '../../test/helpers/tcp-relay.ts';
import { trustTestCa } from '../../test/helpers/tls-ca.ts';
import { createOutboundGuard, type OutboundGuard } from '../outbound/guard.ts';
import { runScan } from './scan.ts';

const USER = 'carol@example.test';
const PASSWORD = 'the-right-one';

let dovecot: Dovecot;
let relay: TcpRelay;
let guard: OutboundGuard;

before(async () => {
  trustTestCa();
  dovecot = await startDovecot({
    users: [
      {
        user: USER,
        password: PASSWORD,
        mailboxes: { INBOX: listMessages({ from: 'a@news.example', mailto: 'mailto:off@news.example' }) },
      },
    ],
  });
  relay = await startTcpRelay({ host: '127.0.0.1', port: dovecot.imapsPort });
  guard = createOutboundGuard({ allowHosts: [`127.0.0.1:${relay.port}`] });
});
after(async () => {
  await guard?.close();
  await relay?.close();
  await dovecot?.stop();
});

const scan = (password: string) =>
  runScan(
    { host: '127.0.0.1', port: relay.port, tls: 'implicit' },
    { user: USER, password },
    guard,
    { matchService: () => null },
    { progress: () => {}, subscription: () => {}, started: async () => true },
  );

/** Dovecot's record of failed logins for USER (auth_verbose: one line per password refused). */
const failedLogins = async () =>
  ((await dovecot.logs()).match(/passwd-file\(carol@example\.test,[^)]*\): Password mismatch/g) ?? []).length;

describe('the scan signs in once per attempt', () => {
  test('a wrong password opens one connection and costs one failed login', async () => {
    const connectionsBefore = relay.connections;
    const failuresBefore = await failedLogins();
    const r = await scan('wrong-password');
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.code, 'AUTH_FAILED');
    // the second connection is never opened, not even to be closed again
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(relay.connections - connectionsBefore, 1);
    // Dovecot logs the refusal when the client goes; wait for it, then count
    let failures = 0;
    for (let i = 0; i < 50 && failures === 0; i++) {
      failures = (await failedLogins()) - failuresBefore;
      if (failures === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(failures, 1);
  });

  test('a right password opens the second connection after signing in, and the scan reads through it', async () => {
    const connectionsBefore = relay.connections;
    const r = await scan(PASSWORD);
    assert.ok(r.ok);
    assert.equal(r.reader, 'lean');
    assert.equal(r.subscriptions.length, 1);
    assert.equal(relay.connections - connectionsBefore, 2);
  });
});
