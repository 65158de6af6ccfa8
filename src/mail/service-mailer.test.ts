/**
 * The service's own mail: through SMTP_URL to a real SMTP server (STARTTLS required, login),
 * into DATA_DIR/outbox as .eml files without it, and a clear failure (never a silent drop)
 * when the server refuses — which the agent registration turns into 503 mail_unavailable.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import PostalMime from 'postal-mime';
import { postJson, SINK_PASSWORD, SINK_USER, startAgentApp } from '../../test/helpers/agent.ts';
import { type SmtpSink, startSmtpSink } from '../../test/helpers/smtp-sink.ts';
import { trustTestCa } from '../../test/helpers/tls-ca.ts';
import { createLogger } from '../log.ts';
import { createServiceMailer } from './service-mailer.ts';

function capture() {
  const lines: string[] = [];
  const logger = createLogger(
    'info',
    new Writable({
      write(chunk, _e, cb) {
        lines.push(String(chunk));
        cb();
      },
    }),
  );
  return { lines, logger };
}

const mail = { to: 'reader@example.test', subject: 'Hello', text: 'one-time link https://x.test/?token=cvt_secret\n' };

describe('service mailer', () => {
  let sink: SmtpSink;
  let dir: string;
  before(async () => {
    trustTestCa();
    sink = await startSmtpSink({ user: SINK_USER, password: SINK_PASSWORD, tls: 'starttls' });
    dir = await mkdtemp(join(tmpdir(), 'optout-mail-'));
  });
  after(async () => {
    await sink.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('with SMTP_URL: delivered over STARTTLS with the URL’s login, From and Auto-Submitted set', async () => {
    const { logger, lines } = capture();
    const m = createServiceMailer({
      smtpUrl: `smtp://${SINK_USER}:${SINK_PASSWORD}@127.0.0.1:${sink.port}`,
      from: 'optout <no-reply@optout.test>',
      dataDir: dir,
      logger,
    });
    const r = await m.send(mail);
    m.close();
    assert.deepEqual(r, { ok: true });
    const got = sink.messages.at(-1)!;
    assert.equal(got.user, SINK_USER);
    assert.deepEqual(got.to, ['reader@example.test']);
    assert.equal(got.from, 'no-reply@optout.test');
    const parsed = await PostalMime.parse(got.raw);
    assert.equal(parsed.subject, 'Hello');
    assert.equal(parsed.text, mail.text);
    assert.ok(parsed.headers.some((h) => h.key === 'auto-submitted' && h.value === 'auto-generated'));
    assert.ok(!lines.join('').includes('cvt_secret'), 'content is never logged');
    assert.ok(!lines.join('').includes(SINK_PASSWORD));
  });

  test('without SMTP_URL: an .eml in DATA_DIR/outbox, readable by its owner only, its path logged', async () => {
    const { logger, lines } = capture();
    const m = createServiceMailer({ smtpUrl: undefined, from: 'optout <no-reply@optout.test>', dataDir: dir, logger });
    const r = await m.send(mail);
    assert.ok(r.ok && r.path);
    assert.deepEqual(await readdir(join(dir, 'outbox')), [r.path.slice(r.path.lastIndexOf('/') + 1)]);
    assert.equal((await stat(r.path)).mode & 0o777, 0o600);
    const parsed = await PostalMime.parse(await readFile(r.path));
    assert.equal(parsed.to?.[0]?.address, 'reader@example.test');
    assert.equal(parsed.text, mail.text);
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.path === r.path);
    assert.ok(logged, 'the path is logged');
    assert.ok(!lines.join('').includes('cvt_secret'));
  });

  test('a refused login is a failure, not a drop; the password stays out of the detail', async () => {
    const { logger, lines } = capture();
    const m = createServiceMailer({
      smtpUrl: `smtp://${SINK_USER}:wrong-password-9@127.0.0.1:${sink.port}`,
      from: 'no-reply@optout.test',
      dataDir: dir,
      logger,
    });
    const r = await m.send(mail);
    m.close();
    assert.equal(r.ok, false);
    assert.ok(!lines.join('').includes('wrong-password-9'));
  });

  test('a verified-email registration whose claim email cannot go out is 503 mail_unavailable and leaves nothing', async () => {
    const t = await startAgentApp('PGlite', { env: { SMTP_URL: 'smtp://u:p@127.0.0.1:1' } });
    try {
      const r = await postJson(t.origin, '/agent/auth', {
        type: 'identity_assertion',
        assertion_type: 'verified_email',
        assertion: 'unreachable@example.test',
      });
      assert.equal(r.status, 503);
      assert.equal(r.body.error, 'mail_unavailable');
      const { rows } = await t.db.query<{ n: number }>('select count(*)::int as n from agent_registrations');
      assert.equal(rows[0]!.n, 0);
    } finally {
      await t.close();
    }
  });
});
