/**
 * The tool's results in Chromium, from a real scan of a private Dovecot (INBOX and Archive):
 * each sender's context before deciding (sample subjects, first and last seen, folder), the
 * sort menu and the never read / paid services views, the compact list at 360 px, and an
 * unsubscribe batch whose connection drops mid-way: no row keeps saying "Working…". The page
 * reaches the app through a TCP relay, so the test can cut the network and refuse
 * reconnections as a dead link would; the one-click endpoint answers slowly, so the batch is
 * still in flight when the cut comes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import { verdictBadge } from '../../src/web/services/labels.ts';
import { TIER_LABEL } from '../../src/web/shared/words.ts';
import { listMessages } from '../fixtures/list-mail.ts';
import { byMailbox, generateMailbox, type MailboxTruth } from '../fixtures/mail-generator.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freePort, launchChromium, overflowPx, watchedPage, wideElements } from '../helpers/browser.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { type HttpsTarget, startHttpsTarget } from '../helpers/https-target.ts';
import { startTcpRelay, type TcpRelay } from '../helpers/tcp-relay.ts';
import { trustTestCa } from '../helpers/tls-ca.ts';
import { fillImapForm, scanToEnd } from '../helpers/tool-page.ts';

const USER = 'bob@example.test';
const PASSWORD = 'app-password-for-results';
/** how long the one-click endpoint takes to answer */
const SLOW_MS = 2500;
/**
 * how long the server keeps a session whose connection dropped (10 minutes in production): past
 * the page's fourth reconnection attempt (7.25 s after a drop), so a slow machine still resumes
 */
const KEEP_MS = 9000;
const SLOW_SENDERS = ['slow-a@slow.test', 'slow-b@slow.test', 'slow-c@slow.test'];

let dovecot: Dovecot;
let target: HttpsTarget;
let relay: TcpRelay;
let t: TestApp;
let base: string;
let browser: Browser;
let page: Page;
let problems: string[];
let truth: MailboxTruth;

/** the lists a default scan (INBOX and Archive) finds, by key, with the folders they are in */
const scanned = () =>
  truth.lists
    .map((l) => ({ l, folders: Object.keys(l.perMailbox).filter((m) => m !== 'Junk') }))
    .filter((x) => x.folders.length > 0);

before(async () => {
  trustTestCa();
  target = await startHttpsTarget(undefined, SLOW_MS);
  const gen = generateMailbox({
    seed: 23,
    lists: 16,
    messagesPerList: [1, 8],
    plain: 6,
    nasty: false,
    now: new Date('2026-11-20T00:00:00Z'),
  });
  truth = gen.truth;
  const boxes = byMailbox(gen.messages);
  const own = [
    ...listMessages({
      from: 'news@loopback.test',
      listId: 'news.loopback.test',
      http: ['https://loopback.test/u'],
      count: 6,
    }),
    ...SLOW_SENDERS.flatMap((from) => listMessages({ from, oneClick: `${target.origin}/u/${from}`, count: 2 })),
  ];
  dovecot = await startDovecot({
    users: [
      {
        user: USER,
        password: PASSWORD,
        mailboxes: { INBOX: [...(boxes.INBOX ?? []), ...own], Archive: boxes.Archive ?? [] },
      },
    ],
  });
  const appPort = await freePort();
  relay = await startTcpRelay({ host: '127.0.0.1', port: appPort });
  base = `http://127.0.0.1:${relay.port}`;
  t = await startTestApp({
    env: {
      BASE_URL: base,
      LOG_LEVEL: 'warn',
      OUTBOUND_ALLOW_HOSTS: [dovecot.imapsPort, target.port].map((p) => `127.0.0.1:${p}`).join(','),
    },
    runtime: { worker: false, channel: { batchSize: 25, keepMs: KEEP_MS } },
  });
  await t.app.listen({ port: appPort, host: '127.0.0.1' });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' });
  ({ page, problems } = await watchedPage(context));
});

after(async () => {
  await browser?.close();
  await t?.close();
  await relay?.close();
  await dovecot?.stop();
  await target?.close();
});

interface Shown {
  key: string;
  text: string;
  read: string;
  perMonth: string;
}

/** The visible rows, top to bottom. */
const shown = () =>
  page.evaluate(`[...document.querySelectorAll('#subs-body tr:not([hidden])')].map((tr) => ({
    key: tr.dataset.listKey,
    text: tr.textContent,
    read: tr.querySelector('td[data-label="Read"]').textContent,
    perMonth: tr.querySelector('td[data-label="Per month"]').textContent,
  }))`) as Promise<Shown[]>;

const row = (key: string) => page.locator(`#subs-body tr[data-list-key="${key}"]`);
const statusTexts = () => page.locator('#subs-body .row-status .badge').allTextContents();

describe('the results of a scan, in a browser', () => {
  test('a real scan shows, per sender, sample subjects, first and last seen, and the folder', async () => {
    await page.goto(`${base}/`);
    await fillImapForm(page, { port: dovecot.imapsPort, user: USER, password: PASSWORD });
    await scanToEnd(page);

    const rows = await shown();
    const expected = [
      ...scanned().map((x) => x.l.key),
      'list:news.loopback.test',
      ...SLOW_SENDERS.map((s) => `from:${s}`),
    ];
    assert.deepEqual(rows.map((r) => r.key).sort(), expected.sort());

    // six weekly issues from 1 September 2026: the three newest subjects, the span, the folder
    const news = row('list:news.loopback.test');
    assert.deepEqual(await news.locator('.samples li').allTextContents(), [
      'Issue 6 from news@loopback.test',
      'Issue 5 from news@loopback.test',
      'Issue 4 from news@loopback.test',
    ]);
    // the dates as this browser writes them ("1 Sept 2026" or "1 Sep 2026", by its ICU version)
    const dates = (await page.evaluate(`(() => {
      const f = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
      return [f.format(new Date('2026-09-01T10:00:00Z')), f.format(new Date('2026-10-06T10:00:00Z'))];
    })()`)) as string[];
    assert.equal(await news.locator('td[data-label="First – last seen"]').textContent(), `${dates[0]} – ${dates[1]}`);
    assert.equal(await news.locator('.folders').textContent(), 'In\u00a0INBOX');

    // every list says where its mail is, Archive included
    const archived = scanned().filter((x) => x.folders.includes('Archive'));
    assert.ok(archived.length > 0, 'the generated mailbox has lists in Archive');
    for (const { l, folders } of scanned()) {
      assert.equal(await row(l.key).locator('.folders').textContent(), `In\u00a0${folders.sort().join(', ')}`, l.key);
    }
    // nothing sticks out of the table, from a laptop down to a tablet: no column is clipped
    for (const width of [1280, 1024, 800]) {
      await page.setViewportSize({ width, height: 800 });
      const clipped = (await page.evaluate(
        "(() => { const w = document.querySelector('.table-wrap'); return w.scrollWidth - w.clientWidth; })()",
      )) as number;
      assert.ok(clipped <= 0, `at ${width}px the table is ${clipped}px wider than its box`);
      assert.ok((await overflowPx(page)) <= 0, `at ${width}px the page scrolls sideways`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  test('"Sort by" orders the rows and the views show only never-read senders or paid services', async () => {
    const sortBy = page.getByLabel('Sort by');
    await sortBy.selectOption({ label: 'Least read' });
    const reads = (await shown()).map((r) => Number.parseInt(r.read, 10));
    assert.deepEqual(
      reads,
      [...reads].sort((a, b) => a - b),
    );
    assert.equal(await page.locator('th[data-sort="read_rate"]').getAttribute('aria-sort'), 'ascending');
    await sortBy.selectOption({ label: 'Most frequent' });
    const perMonth = (await shown()).map((r) => Number(r.perMonth));
    assert.deepEqual(
      perMonth,
      [...perMonth].sort((a, b) => b - a),
    );
    assert.notDeepEqual(reads.length, 0);

    // a header click shows in the menu too
    await page.locator('th[data-sort="sender"] button').click();
    assert.equal(await sortBy.inputValue(), 'sender:ascending');

    const total = (await shown()).length;
    await page.getByLabel(/Never read/).check();
    const never = await shown();
    const neverExpected = [
      ...scanned()
        .filter(({ l, folders }) => folders.every((f) => l.perMailbox[f]!.seen === 0))
        .map(({ l }) => l.key),
      'list:news.loopback.test',
      ...SLOW_SENDERS.map((s) => `from:${s}`),
    ];
    assert.deepEqual(never.map((r) => r.key).sort(), neverExpected.sort());
    assert.ok(never.every((r) => r.read === '0%'));
    assert.match(
      (await page.locator('#results-count').textContent()) ?? '',
      new RegExp(`^${never.length} of ${total} shown`),
    );

    await page.getByLabel(/Paid services/).check();
    const paid = await shown();
    const paidExpected = scanned()
      .filter(({ l }) => l.service)
      .map(({ l }) => l.key);
    assert.ok(paidExpected.length > 0, 'the generated mailbox has senders of catalog services');
    assert.deepEqual(paid.map((r) => r.key).sort(), paidExpected.sort());
    for (const { l } of scanned().filter((x) => x.l.service)) {
      const cell = row(l.key).locator('td[data-label="Service"]');
      assert.equal(await cell.locator('a').getAttribute('href'), `/services/${l.service}`);
      // the service's friction as one badge, tier word and score, exactly as its service page shows it
      const slug = l.service!;
      const f = t.catalog.bySlug.get(slug)!.friction;
      const badge = cell.locator('.verdict-badge');
      assert.equal(await badge.getAttribute('class'), `verdict-badge tier-${f.tier}`, slug);
      assert.equal(await badge.locator('.tier-word').textContent(), TIER_LABEL[f.tier], slug);
      assert.equal(await badge.locator('.tier-score').textContent(), `${f.difficulty.toFixed(1)}/10`, slug);
      assert.equal(await badge.evaluate((n) => n.outerHTML), verdictBadge(f.difficulty).value, slug);
    }
    await page.getByLabel('All', { exact: true }).check();
    assert.equal((await shown()).length, total);
    await sortBy.selectOption({ label: 'Most emails' });
  });

  test('at 360 px the results are a compact list with the same actions, nothing wider than the screen', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    const px = await overflowPx(page);
    assert.ok(px <= 0, `the page is ${px}px wider than a 360px screen: ${(await wideElements(page)).join('; ')}`);
    const boxes = (await page.evaluate(`[...document.querySelectorAll('#subs-body tr')].map((tr) => {
      const r = tr.getBoundingClientRect();
      const box = tr.querySelector('input[data-role="select"]').getBoundingClientRect();
      const name = tr.querySelector('.sender-name').getBoundingClientRect();
      return { key: tr.dataset.listKey, flagged: tr.classList.contains('flagged'), left: r.left, right: r.right,
        height: r.height, box: box.width > 0 && box.right < name.left };
    })`)) as { key: string; flagged: boolean; left: number; right: number; height: number; box: boolean }[];
    assert.ok(boxes.length > 10);
    for (const b of boxes) {
      assert.ok(b.left >= 0 && b.right <= 360, `${b.key} spans ${b.left}–${b.right}px`);
      assert.ok(b.box, `${b.key} keeps its checkbox, beside the name`);
      // a card of a few lines, not a stack of labelled fields; a flagged sender explains why
      assert.ok(b.height < (b.flagged ? 340 : 240), `${b.key} is ${b.height}px tall`);
    }
    assert.equal(await page.locator('#subs thead').isVisible(), false);
    // the same actions: sort, views, select, preview and unsubscribe
    for (const name of ['Preview (dry run)', 'Unsubscribe selected', 'Rarely read'])
      assert.ok(await page.getByRole('button', { name }).isVisible(), name);
    assert.ok(await page.getByLabel('Sort by').isVisible());
    assert.ok(await page.getByLabel(/Paid services/).isVisible());
    // figures read as one line of words: "6 emails · 1.4 a month · 0% read · …"
    const figures = (await page.evaluate(`[...document.querySelectorAll(
      '#subs-body tr[data-list-key="list:news.loopback.test"] td.stat',
    )].map((td) => getComputedStyle(td, '::before').content + '|' + getComputedStyle(td, '::after').content)`)) as string[];
    assert.deepEqual(figures.slice(0, 3), ['none|" emails"', '"·"|" a month"', '"·"|" read"']);
  });

  test('a connection dropped mid-batch: no row stays "Working…"; back in touch, the answers arrive', async () => {
    await page.getByLabel('Filter').fill('slow.test');
    await page.getByRole('button', { name: 'All', exact: true }).click();
    await page.getByRole('button', { name: /^Unsubscribe selected/ }).click();
    const slow = page.locator('#subs-body tr:not([hidden])');
    await slow.first().locator('.row-status').getByText('Working…').waitFor();
    while (target.seen.length < SLOW_SENDERS.length) await sleep(20); // the requests are out, unanswered

    relay.refuse(true);
    relay.cutAll();
    await page.getByText('The connection to our server dropped. Reconnecting…').waitFor();
    assert.deepEqual(
      await statusTexts(),
      SLOW_SENDERS.map(() => 'Connection lost before an answer — reconnecting'),
    );
    // what the rows mean is said once, above them
    assert.match(
      (await page.locator('#notice').textContent()) ?? '',
      /The requests to 3 senders may already have gone out/,
    );

    relay.refuse(false);
    await page
      .locator('#notice')
      .getByText(/^Reconnected\./)
      .waitFor({ timeout: 15_000 });
    await page.locator('#summary').getByText('Done', { exact: true }).waitFor({ timeout: 15_000 });
    assert.deepEqual(
      await statusTexts(),
      SLOW_SENDERS.map(() => 'Unsubscribe request accepted by the sender'),
    );
    assert.equal(target.seen.filter((s) => s.method === 'POST').length, SLOW_SENDERS.length, 'each sent once');
  });

  test('a connection that never comes back before the session ends: each row says what is unknown and what to do', async () => {
    const posts = target.seen.length;
    await page.getByRole('button', { name: /^Unsubscribe selected/ }).click();
    await page.locator('#subs-body tr:not([hidden]) .row-status').first().getByText('Working…').waitFor();
    while (target.seen.length < posts + SLOW_SENDERS.length) await sleep(20);

    relay.refuse(true);
    relay.cutAll();
    await page.getByText('The connection to our server dropped. Reconnecting…').waitFor();
    assert.ok((await statusTexts()).every((s) => s !== 'Working…'));
    // past the time the server keeps a dropped session: the next reconnection finds it gone
    await sleep(KEEP_MS + 1000);
    relay.refuse(false);
    await page
      .locator('#notice')
      .getByText(/no longer holds your sign-in/)
      .waitFor({ timeout: 20_000 });
    assert.deepEqual(
      await statusTexts(),
      SLOW_SENDERS.map(() => 'Connection lost before an answer — scan again to see if it went through'),
    );
    assert.match(
      (await page.locator('#notice').textContent()) ?? '',
      /No answer came for 3 senders before the connection/,
    );
    assert.equal(await page.getByText('Working…').count(), 0);
    await page.getByLabel('Filter').fill('');
    assert.deepEqual(
      problems.filter((p) => !p.includes('/ws')),
      [],
    );
  });
});
