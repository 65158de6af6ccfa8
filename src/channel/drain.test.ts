/**
 * The drain waits for every running scan, not only those a /ws connection shows: an agent's
 * hand-off scan (src/handoff/) running at shutdown finishes within the deadline and its result
 * is there to read; past the deadline it is stopped and says so. Real Dovecot; the service's
 * runtime in-process (the /ws side runs against the real process in test/integration/drain.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateMailbox } from '../../test/fixtures/mail-generator.ts';
import { startTestApp, type TestApp } from '../../test/helpers/app.ts';
import { type Dovecot, startDovecot } from '../../test/helpers/dovecot.ts';
import { trustTestCa } from '../../test/helpers/tls-ca.ts';
import { waitFor } from '../../test/helpers/wait-for.ts';

const USER = 'handoff-drain@example.test';
const PASSWORD = 'app-password-handoff';
let dovecot: Dovecot;

before(async () => {
  trustTestCa();
  const mail = generateMailbox({ seed: 11, lists: 40, messagesPerList: [20, 30], plain: 0, nasty: false });
  dovecot = await startDovecot({ users: [{ user: USER, password: PASSWORD, mailboxes: { INBOX: mail.messages } }] });
});
after(() => dovecot?.stop());

async function handoffScanning(t: TestApp) {
  const made = t.runtime.handoffs.create({
    registrationId: 'reg_drain',
    email: USER,
    provider: 'custom',
    imap: { host: '127.0.0.1', port: dovecot.imapsPort, tls: 'implicit' },
  });
  assert.ok(made.ok);
  const h = made.handoff;
  void t.runtime.handoffs.signInWithPassword(h, PASSWORD, { ip: '192.0.2.10' });
  await waitFor(async () => (h.session.running === 'scan' ? true : undefined), 20_000, 5);
  return h;
}

describe('the drain and agents’ hand-off scans', () => {
  test('a hand-off scan running at shutdown finishes within the deadline, its result kept', async () => {
    const t = await startTestApp({
      env: { OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${dovecot.imapsPort}` },
      runtime: { worker: false, channel: { batchSize: 20 } },
    });
    try {
      const h = await handoffScanning(t);
      const report = await t.runtime.live.drain(60_000);
      assert.equal(report.running, 1);
      assert.equal(report.stopped, 0);
      assert.equal(h.session.running, null);
      assert.equal(h.session.lastScan?.subscriptions.size, 40);
    } finally {
      await t.close();
    }
  });

  test('past the deadline it is stopped, and its outcome says cancelled', async () => {
    const t = await startTestApp({
      env: { OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${dovecot.imapsPort}` },
      runtime: { worker: false, channel: { batchSize: 5 } },
    });
    try {
      const h = await handoffScanning(t);
      const report = await t.runtime.live.drain(0);
      assert.equal(report.running, 1);
      assert.equal(report.stopped, 1);
      assert.equal(h.session.running, null);
      await waitFor(async () => (h.done ? true : undefined), 5000);
      assert.equal(h.done?.cancelled, true);
    } finally {
      await t.close();
    }
  });
});
