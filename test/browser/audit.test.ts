/**
 * The audit panel on `/` in Chromium: a custom-provider scan of a private Dovecot holding list
 * mail and generated billing mail (test/fixtures/receipt-mail.ts), then "Audit spend and
 * frequency": spend per service, the monthly totals per currency and the frequency, as the
 * generator's answer key says; axe in light and dark; no sideways scrolling at 360 px.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { verdictBadge } from '../../src/web/services/labels.ts';
import { TIER_LABEL } from '../../src/web/shared/words.ts';
import { listMessages } from '../fixtures/list-mail.ts';
import { generateReceipts } from '../fixtures/receipt-mail.ts';
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
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { trustTestCa } from '../helpers/tls-ca.ts';
import { fillImapForm, scanToEnd } from '../helpers/tool-page.ts';

const USER = 'alice@example.test';
const PASSWORD = 'audit-browser-pw';
const now = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000);
const receipts = generateReceipts(now);

let dovecot: Dovecot;
let t: TestApp;
let base: string;
let browser: Browser;
let page: Page;
let problems: string[];

before(async () => {
  trustTestCa();
  const lists = [
    ...listMessages({ from: 'news@lists.example', oneClick: 'https://lists.example/u', count: 6 }),
    ...listMessages({ from: 'deals@shop.example', oneClick: 'https://shop.example/u', count: 4, seen: true }),
  ];
  const inbox = [...lists, ...receipts.messages.filter((m) => m.mailbox === 'INBOX')].sort(
    (a, b) => a.date.getTime() - b.date.getTime(),
  );
  dovecot = await startDovecot({ users: [{ user: USER, password: PASSWORD, mailboxes: { INBOX: inbox } }] });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await startTestApp({
    env: { BASE_URL: base, LOG_LEVEL: 'warn', OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${dovecot.imapsPort}` },
    runtime: { worker: false },
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  ({ page, problems } = await watchedPage(context));
});

after(async () => {
  await browser?.close();
  await t?.close();
  await dovecot?.stop();
});

const money = (amount: number, currency: string) =>
  new Intl.NumberFormat('en', { style: 'currency', currency }).format(amount);

describe('the audit panel', () => {
  test('appears after a scan and shows spend per service, monthly totals and frequency', async () => {
    await page.goto(`${base}/`);
    assert.equal(await page.locator('#audit').isVisible(), false, 'hidden before a scan');
    await fillImapForm(page, { port: dovecot.imapsPort, user: USER, password: PASSWORD });
    await scanToEnd(page);

    await page.getByRole('button', { name: 'Audit spend and frequency' }).click();
    await page.locator('#audit-result').waitFor({ state: 'visible', timeout: 30_000 });

    const rows = (await page.$$eval('#audit-spend tbody tr', (trs) =>
      trs.map((tr) => ({
        slug: tr.getAttribute('data-slug'),
        cells: [...tr.querySelectorAll('th, td')].map((c) => (c.textContent ?? '').trim()),
      })),
    )) as { slug: string; cells: string[] }[];
    assert.deepEqual(rows.map((r) => r.slug).sort(), receipts.spend.map((s) => s.slug).sort());
    for (const want of receipts.spend) {
      const row = rows.find((r) => r.slug === want.slug)!;
      const [, amount, , perMonth, , count] = row.cells;
      if (want.amount === null) {
        assert.equal(amount, 'Not found', want.slug);
        assert.equal(perMonth, '—', want.slug);
      } else {
        assert.equal(amount, money(want.amount, want.currency!), want.slug);
        assert.equal(perMonth, money(want.monthly_amount!, want.currency!), want.slug);
      }
      assert.equal(count, String(want.receipts), want.slug);
    }
    // "Cancelling": each service's friction as one badge, tier word and score, as its service page shows it
    for (const want of receipts.spend) {
      const f = t.catalog.bySlug.get(want.slug)!.friction;
      const cancelling = page.locator(`#audit-spend tr[data-slug="${want.slug}"] td[data-label="Cancelling"]`);
      const badge = cancelling.locator('.verdict-badge');
      assert.equal(await badge.getAttribute('class'), `verdict-badge tier-${f.tier}`, want.slug);
      assert.equal((await cancelling.textContent())?.trim(), `${TIER_LABEL[f.tier]} ${f.difficulty.toFixed(1)}/10`);
      assert.equal(await badge.evaluate((n) => n.outerHTML), verdictBadge(f.difficulty).value, want.slug);
    }
    const hellofresh = rows.find((r) => r.slug === 'hellofresh')!;
    assert.equal(hellofresh.cells[2], 'Weekly');
    const netflix = page.locator('#audit-spend tr[data-slug="netflix"] a');
    assert.equal(await netflix.getAttribute('href'), `${base}/services/netflix`);
    // and in the results, beside the sender that belongs to Netflix, what it costs a month
    const fee = receipts.spend.find((x) => x.slug === 'netflix')!;
    assert.ok(fee.monthly_amount !== null);
    assert.equal(
      (
        await page.locator('#subs-body td[data-label="Service"]:has(a[href="/services/netflix"]) .spend').textContent()
      )?.trim(),
      `${money(fee.monthly_amount!, fee.currency!)} a month`,
    );

    const totals = (await page.locator('#audit-totals li').allTextContents()).map((s) => s.trim());
    assert.deepEqual(
      totals,
      receipts.monthlyTotal.map((x) => `${money(x.amount, x.currency)} a month in ${x.currency}`),
    );
    const frequency = (await page.locator('#audit-frequency').textContent()) ?? '';
    assert.match(frequency, /list emails a month from 3 senders\. You never opened anything from 67% of them\./);
    // the two lists and the Netflix advert (it offers an unsubscribe)
    assert.equal(await page.locator('#audit-top li').count(), 3);
    assert.equal(
      (await page.locator('#status').textContent()) ?? '',
      `Audit done: ${receipts.spend.length} paid services found in your receipts.`,
    );
  });

  test('no serious or critical accessibility violations, in light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const v = await seriousAxeViolations(page);
      assert.equal(v.length, 0, `${colorScheme}:\n${describeViolations(v)}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('at 360 px nothing scrolls sideways, and the page ran cleanly', async () => {
    mkdirSync(SCREENSHOTS_DIR, { recursive: true });
    await page.locator('#audit').screenshot({ path: join(SCREENSHOTS_DIR, 'audit-desktop.png') });
    await page.setViewportSize({ width: 360, height: 740 });
    await page.locator('#audit').screenshot({ path: join(SCREENSHOTS_DIR, 'audit-mobile.png') });
    const px = await overflowPx(page);
    assert.ok(px <= 0, `the page is ${px}px wider than a 360px screen: ${(await wideElements(page)).join('; ')}`);
    assert.deepEqual(problems, []);
  });
});
