/**
 * The inbox tool through the real page in Chromium: a custom-provider scan of a private
 * Dovecot, live rows, "rarely read" against the generator's ground truth, a dry-run
 * preview, then unsubscribing through a loopback one-click endpoint and an SMTP sink.
 * Also: axe in light and dark, and the screenshots in docs/screenshots/.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { MailboxTruth } from '../fixtures/mail-generator.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  describeViolations,
  freePort,
  launchChromium,
  overflowPx,
  SCREENSHOTS_DIR,
  seriousAxeViolations,
  watchedPage,
  wideElements,
} from '../helpers/browser.ts';
import { type Dovecot, type MaildirMessage, startDovecot } from '../helpers/dovecot.ts';
import { type HttpsTarget, startHttpsTarget } from '../helpers/https-target.ts';
import { allowLoopback } from '../helpers/loopback.ts';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';
import { trustTestCa } from '../helpers/tls-ca.ts';
import { fillImapForm, scanToEnd } from '../helpers/tool-page.ts';
import { rowsOf, scanMailbox } from './scan-fixture.ts';

const USER = 'alice@example.test';
const PASSWORD = 'app-password-for-test';

let dovecot: Dovecot;
let target: HttpsTarget;
let sink: SmtpSink;
let t: TestApp;
let base: string;
let browser: Browser;
let page: Page;
let problems: string[];
let truth: MailboxTruth;
/** see scan-fixture.ts */
let mailedSinceLeaving = 0;
let inboxSize = 0;
/** every socket upgraded to a WebSocket, so a test can cut them as a network would */
const upgraded: Duplex[] = [];

const round2 = (n: number) => Math.round(n * 100) / 100;

before(async () => {
  trustTestCa();
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  target = await startHttpsTarget();
  sink = await startSmtpSink({ user: USER, password: PASSWORD, tls: 'implicit' });
  let inbox: MaildirMessage[];
  ({ truth, inbox, mailedSinceLeaving } = scanMailbox(target.origin));
  inboxSize = inbox.length;
  dovecot = await startDovecot({ users: [{ user: USER, password: PASSWORD, mailboxes: { INBOX: inbox } }] });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await startTestApp({
    env: {
      BASE_URL: base,
      LOG_LEVEL: 'warn',
      OUTBOUND_ALLOW_HOSTS: allowLoopback(dovecot.imapsPort, target.port, sink.port),
    },
    runtime: { worker: false, channel: { batchSize: 25 } },
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  t.app.server.on('upgrade', (_req, socket: Duplex) => upgraded.push(socket));
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' });
  ({ page, problems } = await watchedPage(context));
});

after(async () => {
  await browser?.close();
  await t?.close();
  await dovecot?.stop();
  await target?.close();
  await sink?.close();
});

const rowState = () => rowsOf(page);

describe('the inbox tool in a browser', () => {
  const inboxLists = () => truth.lists.filter((l) => l.perMailbox.INBOX);
  const stale = () => inboxLists().find((l) => l.lastDate.getTime() > Date.parse('2021-01-01'))!;

  test('a custom-provider scan shows its quota, progress and every list as a row', async () => {
    await page.goto(`${base}/robots.txt`);
    // Earlier unsubscriptions kept by this browser (set on a page of the same origin that loads
    // nothing else): one list kept mailing afterwards, one (weekly, last mail 29 Sep 2026) went quiet.
    const earlier = JSON.stringify([
      { list_key: stale().key, at: '2020-06-01T00:00:00.000Z' },
      { list_key: 'from:weekly@loopback.test', at: '2026-10-15T00:00:00.000Z' },
    ]);
    await page.evaluate(`localStorage.setItem('optout.unsubscribes.v1', ${JSON.stringify(earlier)})`);
    await page.goto(`${base}/`);
    await fillImapForm(page, { port: dovecot.imapsPort, user: USER, password: PASSWORD });
    await page.getByText('Outgoing server (optional)').click();
    await page.getByLabel('SMTP server').fill('127.0.0.1');
    await page.locator('#smtp-port').fill(String(sink.port));
    await page.getByLabel('Email address').blur();
    await page.getByText('3 scans left today for this address.').waitFor();
    // The form says which folders it will read, and follows the Junk / Trash boxes.
    const folders = page.locator('#folders-note');
    assert.match(
      (await folders.textContent()) ?? '',
      /All Mail where your mail server has one.*otherwise your Inbox and Archive\. Junk and Trash only if/,
    );
    await page.getByText('More options', { exact: true }).click();
    await page.getByLabel('Also look in Junk / Spam').check();
    assert.match((await folders.textContent()) ?? '', /Inbox and Archive; also Junk \/ Spam\.$/);
    await page.getByLabel('Also look in Junk / Spam').uncheck();

    // A wrong password first: the advice is about app passwords, and it costs no scan.
    await page.getByLabel('Password', { exact: true }).fill('not-the-password');
    await page.getByRole('button', { name: 'Scan my inbox' }).click();
    await page
      .locator('#error')
      .getByText(/did not accept the sign-in\. Most providers need an app password/)
      .waitFor();
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);

    await scanToEnd(page);
    assert.equal(await page.locator('#error').isVisible(), false);
    assert.equal(
      await page.locator('#progress').getAttribute('value'),
      await page.locator('#progress').getAttribute('max'),
    );
    await page.getByText('2 scans left today for this address.').waitFor();
    assert.match(
      (await page.locator('#progress-label').textContent()) ?? '',
      new RegExp(`\\(INBOX ${inboxSize}, Archive 0\\)\\.$`),
    );

    const rows = await rowState();
    const expected = [
      ...inboxLists().map((l) => l.key),
      'list:news.loopback.test',
      'from:deals@loopback.test',
      'from:weekly@loopback.test',
      'from:promo@forged-loopback.test',
    ];
    assert.deepEqual(rows.map((r) => r.key).sort(), expected.sort());
    // sorted by count, largest first, as the header says
    assert.equal(await page.locator('th[data-sort="count"]').getAttribute('aria-sort'), 'descending');
    const stillMailing = rows.find((r) => r.key === stale().key)!;
    // what the verification re-scan found: the messages dated after the earlier unsubscription
    assert.ok(mailedSinceLeaving > 0);
    assert.match(
      stillMailing.text,
      new RegExp(`Still mailing since you left on 1 Jun 2020: ${mailedSinceLeaving} messages?`),
    );
    assert.match(
      (await page.locator('#status').textContent()) ?? '',
      /Of the 2 lists you left earlier: 1 still mailing, 1 sent nothing new \(marked below\)\./,
    );
    assert.match(
      rows.find((r) => r.key === 'from:weekly@loopback.test')!.text,
      /Nothing new since you left on 15 Oct 2026/,
    );
    const forged = rows.find((r) => r.key === 'from:promo@forged-loopback.test')!;
    assert.match(forged.text, /Check first/);
    // its DKIM failed, so its one-click is not offered, and the row says why
    assert.match(forged.text, /One-click not offered: the mail’s signature did not verify/);
    assert.doesNotMatch(rows.find((r) => r.key === 'list:news.loopback.test')!.text, /One-click not offered/);
  });

  test('headers sort with aria-sort, and the filter hides rows that do not match', async () => {
    await page.locator('th[data-sort="sender"] button').click();
    assert.equal(await page.locator('th[data-sort="sender"]').getAttribute('aria-sort'), 'ascending');
    assert.equal(await page.locator('th[data-sort="count"]').getAttribute('aria-sort'), null);
    const names = await page.$$eval('#subs-body tr .sender-name', (els) =>
      els.map((e) => (e.textContent ?? '').toLowerCase()),
    );
    assert.deepEqual(
      names,
      [...names].sort((a, b) => a.localeCompare(b)),
    );
    await page.locator('th[data-sort="count"] button').click();
    await page.getByLabel('Filter').fill('loopback');
    assert.equal(await page.locator('#subs-body tr:not([hidden])').count(), 4);
    await page.getByLabel('Filter').fill('');
  });

  test('"Rarely read" selects exactly the lists read less than 1 in 5 times with 3+ emails', async () => {
    await page.getByRole('button', { name: 'Rarely read' }).click();
    const chosen = (await rowState())
      .filter((r) => r.checked)
      .map((r) => r.key)
      .sort();
    const fromTruth = inboxLists()
      .filter(
        (l) => l.perMailbox.INBOX!.count >= 3 && round2(l.perMailbox.INBOX!.seen / l.perMailbox.INBOX!.count) < 0.2,
      )
      .map((l) => l.key);
    const expected = [
      ...fromTruth,
      'list:news.loopback.test',
      'from:deals@loopback.test',
      'from:promo@forged-loopback.test',
    ].sort();
    assert.deepEqual(chosen, expected);
    assert.match(
      (await page.locator('#selected-count').textContent()) ?? '',
      new RegExp(`^${expected.length} selected`),
    );
    await page.getByRole('button', { name: 'None' }).click();
    assert.equal((await rowState()).filter((r) => r.checked).length, 0);
  });

  test('a dropped connection: the page reconnects, resumes, keeps the selection and says so', async () => {
    await page.getByRole('button', { name: 'Rarely read' }).click();
    const before = await rowState();
    const chosen = before.filter((r) => r.checked).map((r) => r.key);
    assert.ok(chosen.length > 0);
    const cut = upgraded.splice(0);
    assert.ok(cut.length > 0);
    for (const socket of cut) socket.destroy(); // no close frame: the browser sees 1006
    await page
      .locator('#notice')
      .getByText(/^Reconnected\. Your results and selection are as you left them/)
      .waitFor();
    assert.ok(upgraded.length > 0, 'a new connection was opened');
    const after = await rowState();
    assert.deepEqual(
      after.filter((r) => r.checked).map((r) => r.key),
      chosen,
    );
    assert.deepEqual(after.map((r) => r.key).sort(), before.map((r) => r.key).sort());
    await page.getByText('2 scans left today for this address.').waitFor();
    assert.equal(await page.locator('#error').isVisible(), false);
    await page.getByRole('button', { name: 'None' }).click();
  });

  test('a dry run shows what would happen and sends nothing', async () => {
    await page.getByLabel('Filter').fill('loopback');
    await page.getByRole('button', { name: 'All', exact: true }).click();
    await page.getByRole('button', { name: 'Preview (dry run)' }).click();
    await page.locator('#summary').getByText('Preview (nothing was sent)').waitFor({ timeout: 20_000 });
    const byKey = new Map((await rowState()).map((r) => [r.key, r]));
    assert.equal(byKey.get('list:news.loopback.test')!.status, 'planned-unsubscribed');
    assert.equal(byKey.get('from:weekly@loopback.test')!.status, 'planned-unsubscribed');
    assert.equal(byKey.get('from:deals@loopback.test')!.status, 'planned-email_sent');
    assert.equal(byKey.get('from:promo@forged-loopback.test')!.status, 'planned-skipped');
    assert.equal(target.seen.length, 0);
    assert.equal(sink.messages.length, 0);
  });

  test('"Unsubscribe selected" reaches the one-click endpoint and the SMTP server, row by row', async () => {
    await page.getByLabel(/Include .*forged-loopback.* anyway|Include promo anyway/).check();
    await page.getByRole('button', { name: /^Unsubscribe selected/ }).click();
    await page.locator('#summary').getByText('Done', { exact: true }).waitFor({ timeout: 30_000 });
    const byKey = new Map((await rowState()).map((r) => [r.key, r]));
    assert.equal(byKey.get('list:news.loopback.test')!.status, 'unsubscribed');
    assert.equal(byKey.get('from:weekly@loopback.test')!.status, 'unsubscribed');
    // included by the person, but without DKIM evidence: the page to open, never a POST
    assert.equal(byKey.get('from:promo@forged-loopback.test')!.status, 'open_link');
    assert.match(byKey.get('from:promo@forged-loopback.test')!.text, /One-click was not used: /);
    assert.equal(byKey.get('from:deals@loopback.test')!.status, 'email_sent');
    // plain words: a 2xx is the sender accepting the request; the HTTP status is in the details
    const news = page.locator('#subs-body tr[data-list-key="list:news.loopback.test"]');
    assert.equal(await news.locator('.row-status .badge').textContent(), 'Unsubscribe request accepted by the sender');
    assert.equal(await news.locator('.row-status details').getAttribute('open'), null);
    await news.locator('.row-status summary').click();
    assert.match(
      (await news.locator('.row-status details').textContent()) ?? '',
      /Method: one-click.*Tried: one-click → ok \(HTTP 200\)/s,
    );
    assert.match(byKey.get('from:deals@loopback.test')!.text, /Email sent from your address/);
    assert.match(byKey.get('from:promo@forged-loopback.test')!.text, /Needs you: open this link/);
    const posts = target.seen
      .filter((s) => s.method === 'POST')
      .map((s) => s.url)
      .sort();
    assert.deepEqual(posts, ['/u/news', '/u/weekly']);
    assert.ok(target.seen.every((s) => s.body === 'List-Unsubscribe=One-Click'));
    assert.deepEqual(
      sink.messages.map((m) => m.to),
      [['leave@loopback.test']],
    );
    assert.match(
      (await page.locator('#summary').textContent()) ?? '',
      /2 requests accepted by their senders, 1 email sent from your address, 1 needs you to open a link/,
    );
    // one summary: the status line does not repeat the box
    assert.equal(await page.locator('#status').textContent(), '');

    // The browser keeps only list keys and times.
    const kept = (await page.evaluate("localStorage.getItem('optout.unsubscribes.v1') ?? ''")) as string;
    const entries = JSON.parse(kept) as { list_key: string; at: string }[];
    assert.ok(entries.some((e) => e.list_key === 'list:news.loopback.test'));
    for (const e of entries) assert.deepEqual(Object.keys(e).sort(), ['at', 'list_key']);
    assert.ok(!kept.includes(USER) && !kept.includes(PASSWORD));
  });

  test('no serious or critical accessibility violations, in light and dark', async () => {
    await page.getByLabel('Filter').fill('');
    await page.getByLabel('Filter').blur();
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const v = await seriousAxeViolations(page);
      assert.equal(v.length, 0, `${colorScheme}:\n${describeViolations(v)}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('screenshots with results at desktop and 360 px, and the page ran cleanly', async () => {
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(SCREENSHOTS_DIR, 'home-desktop.png'), fullPage: true });
    await page.setViewportSize({ width: 360, height: 740 });
    const px = await overflowPx(page);
    assert.ok(px <= 0, `the page is ${px}px wider than a 360px screen: ${(await wideElements(page)).join('; ')}`);
    await page.screenshot({ path: join(SCREENSHOTS_DIR, 'home-mobile.png'), fullPage: true });
    assert.deepEqual(problems, []);
  });
});
