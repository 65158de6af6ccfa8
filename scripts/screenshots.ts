/**
 * `npm run screenshots`: regenerates docs/screenshots/ from a real run, the way a person meets
 * optout. It starts its own peers as the browser tests do (test/helpers): a private Dovecot with
 * a generated mailbox, an HTTPS one-click endpoint and an SMTP server on loopback, the app
 * in-process on embedded storage, and Debian's Chromium. Then, each at 1280 px and at 360 px:
 *
 *   home-empty        first visit of /, nothing typed
 *   scan-error        a wrong password
 *   scan-progress     a scan half-way (the IMAP connection is held still for the picture)
 *   audit             the audit of what the paid services that send receipts cost
 *   results           the finished scan (after the audit, which adds each service's cost)
 *   unsubscribe-batch a batch with mixed outcomes (accepted, email sent, refused, a link to open)
 *   service           a service page (/services/sky: confirmed facts, exits, rights)
 *   services          /services
 *   article           a blog article
 *
 * Options: SCREENSHOTS_DIR (default docs/screenshots), CHROMIUM_BIN (default /usr/bin/chromium).
 * The old files of these names are replaced; nothing else in the directory is touched.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { listMessages } from '../test/fixtures/list-mail.ts';
import { byMailbox, generateMailbox } from '../test/fixtures/mail-generator.ts';
import { generateReceipts } from '../test/fixtures/receipt-mail.ts';
import { startTestApp } from '../test/helpers/app.ts';
import { freePort, launchChromium } from '../test/helpers/browser.ts';
import { startDovecot } from '../test/helpers/dovecot.ts';
import { startHttpsTarget } from '../test/helpers/https-target.ts';
import { startSmtpSink } from '../test/helpers/smtp-sink.ts';
import { startTcpRelay } from '../test/helpers/tcp-relay.ts';
import { trustTestCa } from '../test/helpers/tls-ca.ts';

const OUT = resolve(process.env.SCREENSHOTS_DIR ?? join(import.meta.dirname, '..', 'docs', 'screenshots'));
const USER = 'sam@example.test';
const PASSWORD = 'app-password-for-screenshots';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 360, height: 740 };

/** Dovecot's answers passed on before the scan is held: a third or so of the header fetch. */
const HOLD_AFTER_BYTES = 400_000;

async function until(ok: () => boolean, what: string, ms = 60_000) {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

/** Polls an expression in the page (the page's CSP refuses the eval a string waitForFunction needs). */
async function untilPage(page: Page, expr: string, ms = 30_000) {
  const end = Date.now() + ms;
  while (!(await page.evaluate(expr))) {
    if (Date.now() > end) throw new Error(`timed out: ${expr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const log = (line: string) => process.stdout.write(`${line}\n`);

/** The whole page at both widths, or only the part `focus` (a selector) names. */
async function shoot(page: Page, name: string, opts: { focus?: string } = {}) {
  for (const [size, suffix] of [
    [DESKTOP, 'desktop'],
    [PHONE, 'mobile'],
  ] as const) {
    await page.setViewportSize(size);
    const path = join(OUT, `${name}-${suffix}.png`);
    if (opts.focus) await page.locator(opts.focus).first().screenshot({ path });
    else await page.screenshot({ path, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
  log(`  ${name}-desktop.png, ${name}-mobile.png`);
}

async function main() {
  trustTestCa();
  mkdirSync(OUT, { recursive: true });
  // One-click endpoints: most accept; /u/refuse answers 503, as a sender's broken endpoint would.
  const target = await startHttpsTarget((path, res) =>
    path.startsWith('/u/refuse') ? res.writeHead(503).end('unavailable') : res.writeHead(200).end('ok'),
  );
  const sink = await startSmtpSink({ user: USER, password: PASSWORD, tls: 'implicit' });
  const o = target.origin;
  // The generated mailbox: ordinary lists and enough other mail for the scan to take a moment.
  const gen = generateMailbox({ seed: 11, lists: 14, messagesPerList: [6, 60], plain: 1500, nasty: false });
  const own = [
    ...listMessages({
      from: 'news@dailybrief-demo.test',
      listId: 'news.dailybrief-demo.test',
      oneClick: `${o}/u/news`,
      count: 9,
    }),
    ...listMessages({
      from: 'offers@shopdeals-demo.test',
      mailto: 'mailto:leave@shopdeals-demo.test?subject=unsubscribe',
      count: 6,
    }),
    ...listMessages({ from: 'digest@roundup-demo.test', oneClick: `${o}/u/refuse`, count: 7 }),
    ...listMessages({ from: 'promo@lookalike-demo.test', oneClick: `${o}/u/forged`, count: 4, dkimFail: true }),
  ];
  // Receipts and renewal notices of catalog services, for the audit.
  const receipts = generateReceipts(new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000));
  const inbox = [
    ...(byMailbox(gen.messages).INBOX ?? []),
    ...own,
    ...receipts.messages.filter((m) => m.mailbox === 'INBOX'),
  ].sort((a, b) => a.date.getTime() - b.date.getTime());
  const dovecot = await startDovecot({ users: [{ user: USER, password: PASSWORD, mailboxes: { INBOX: inbox } }] });
  // The app reaches Dovecot through a relay, so the scan can be held still for its picture.
  const relay = await startTcpRelay({ host: '127.0.0.1', port: dovecot.imapsPort });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const app = await startTestApp({
    env: {
      BASE_URL: base,
      LOG_LEVEL: 'warn',
      OUTBOUND_ALLOW_HOSTS: [relay.port, target.port, sink.port].map((p) => `127.0.0.1:${p}`).join(','),
    },
    runtime: { worker: false, channel: { batchSize: 50 } },
  });
  await app.app.listen({ port, host: '127.0.0.1' });
  const browser = await launchChromium();
  let context: BrowserContext | undefined;
  try {
    context = await browser.newContext({ viewport: DESKTOP, colorScheme: 'light' });
    const page = await context.newPage();
    log(`writing to ${OUT}`);

    await page.goto(`${base}/`);
    await shoot(page, 'home-empty');

    await page.getByLabel('Other (IMAP)').check();
    await page.getByLabel('IMAP server').fill('127.0.0.1');
    await page.getByLabel('Port', { exact: true }).first().fill(String(relay.port));
    await page.getByText('Outgoing server (optional)').click();
    await page.getByLabel('SMTP server').fill('127.0.0.1');
    await page.locator('#smtp-port').fill(String(sink.port));
    await page.getByLabel('Email address').fill(USER);
    await page.getByLabel('Password', { exact: true }).fill('not-the-password');
    await page.getByRole('button', { name: 'Scan my inbox' }).click();
    await page.locator('#error').waitFor({ state: 'visible', timeout: 30_000 });
    await shoot(page, 'scan-error');

    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    // Half-way, the relay stops passing Dovecot's answers on: the scan waits, as on a slow line.
    const start = relay.bytesDown;
    await page.getByRole('button', { name: 'Scan my inbox' }).click();
    await until(() => relay.bytesDown - start > HOLD_AFTER_BYTES, 'the scan reads the mailbox');
    relay.hold(true);
    await untilPage(page, `(() => { const p = document.getElementById('progress'); return !!p && p.value > 0; })()`);
    await page.waitForTimeout(300); // whatever was already on its way is drawn
    await shoot(page, 'scan-progress');
    relay.hold(false);
    await page
      .locator('#status')
      .getByText(/^Found \d+/)
      .waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Audit spend and frequency' }).click();
    await page.locator('#audit-result').waitFor({ state: 'visible', timeout: 60_000 });
    await shoot(page, 'audit', { focus: '#audit' });
    await shoot(page, 'results');

    // The batch: four senders, one of each outcome, shown alone with the filter.
    await page.getByLabel('Filter').fill('-demo');
    await page.getByRole('button', { name: 'All', exact: true }).click();
    const include = page.getByLabel(/Include .*lookalike.* anyway|Include promo anyway/);
    if (await include.count()) await include.check();
    await page.getByRole('button', { name: /^Unsubscribe selected/ }).click();
    await page.locator('#summary').getByText('Done', { exact: true }).waitFor({ timeout: 60_000 });
    await shoot(page, 'unsubscribe-batch', { focus: '#results' });

    await page.goto(`${base}/services/sky`);
    await shoot(page, 'service');
    await page.goto(`${base}/services`);
    await shoot(page, 'services');
    await page.goto(`${base}/blog/how-to-unsubscribe-all-emails/`);
    await shoot(page, 'article');
  } finally {
    await context?.close();
    await browser.close();
    await app.close();
    await relay.close();
    await dovecot.stop();
    await target.close();
    await sink.close();
  }
}

await main();
