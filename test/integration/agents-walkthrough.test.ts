/**
 * docs/agents.md, "Walkthrough", executed: every request it shows is sent in order to a live
 * service, and every answer must fit the one it shows (test/helpers/doc-examples.ts). The
 * mailbox is a private Dovecot; the sender's one-click endpoint an HTTPS server; the claim
 * email goes to an SMTP sink, from which the person's part (open the link, press the button,
 * read the code) is played over HTTP.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { listMessages } from '../fixtures/list-mail.ts';
import {
  type AgentApp,
  claimLinkFor,
  pressForCode,
  SINK_PASSWORD,
  SINK_USER,
  startAgentApp,
  UNLIMITED,
} from '../helpers/agent.ts';
import { parseExamples, runExamples } from '../helpers/doc-examples.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { type HttpsTarget, startHttpsTarget } from '../helpers/https-target.ts';
import { allowLoopback } from '../helpers/loopback.ts';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';
import { trustTestCa } from '../helpers/tls-ca.ts';

const EMAIL = 'dana@example.test';
const APP_PASSWORD = 'walkthrough-app-password';

/** One receipt from a catalog service's sender domain, for the audit step. */
const NETFLIX_RECEIPT = {
  raw: Buffer.from(
    [
      'From: Netflix <info@account.netflix.com>',
      `To: <${EMAIL}>`,
      'Subject: Your Netflix receipt',
      'Date: Sat, 05 Sep 2026 10:00:00 +0000',
      'Message-ID: <receipt-1@account.netflix.com>',
      'Authentication-Results: mx.example.test; dkim=pass header.d=netflix.com; dmarc=pass',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Thanks for your payment for your Netflix membership.',
      'Plan: Standard',
      'Total charged: $17.99 a month',
      '',
    ].join('\r\n'),
  ),
  seen: true,
  date: new Date('2026-09-05T10:00:00Z'),
};

let dovecot: Dovecot;
let target: HttpsTarget;
let mailSink: SmtpSink;
let claimSink: SmtpSink;
let t: AgentApp;

before(async () => {
  trustTestCa();
  target = await startHttpsTarget();
  mailSink = await startSmtpSink({ user: EMAIL, password: APP_PASSWORD, tls: 'implicit' });
  claimSink = await startSmtpSink({ user: SINK_USER, password: SINK_PASSWORD, tls: 'starttls' });
  dovecot = await startDovecot({
    users: [
      {
        user: EMAIL,
        password: APP_PASSWORD,
        mailboxes: {
          INBOX: [
            ...listMessages({ from: 'news@oneclick.example', oneClick: `${target.origin}/u/news` }),
            ...listMessages({ from: 'deals@mailonly.example', mailto: 'mailto:leave@mailonly.example' }),
            NETFLIX_RECEIPT,
          ],
        },
      },
    ],
  });
  t = await startAgentApp('PGlite', {
    sink: claimSink,
    agent: { limits: UNLIMITED },
    env: {
      OUTBOUND_ALLOW_HOSTS: allowLoopback(dovecot.imapsPort, target.port, mailSink.port),
    },
  });
});
after(async () => {
  await t.close();
  await dovecot.stop();
  await target.close();
  await mailSink.close();
  await claimSink.close();
});

test('docs/agents.md walkthrough: every request answers as the document shows', async () => {
  const md = await readFile(new URL('../../docs/agents.md', import.meta.url), 'utf8');
  const start = md.indexOf('## Walkthrough');
  const section = md.slice(start, md.indexOf('\n## ', start + 5));
  const examples = parseExamples(section);
  assert.ok(examples.length >= 10, `${examples.length} examples`);
  const vars: Record<string, string> = {
    imap_host: '127.0.0.1',
    imap_port: String(dovecot.imapsPort),
    smtp_host: '127.0.0.1',
    smtp_port: String(mailSink.port),
    app_password: APP_PASSWORD,
  };
  await runExamples(examples, {
    origin: t.origin,
    vars,
    // the person's part of the claim: the emailed link, the button, the code they read out
    resolve: { otp: async () => pressForCode(t.origin, await claimLinkFor(claimSink, EMAIL)) },
  });
  // what the walkthrough did happened: one one-click POST, no more
  assert.deepEqual(
    target.seen.map((s) => [s.method, s.url, s.body]),
    [['POST', '/u/news', 'List-Unsubscribe=One-Click']],
  );
});
