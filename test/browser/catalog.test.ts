/**
 * The catalog pages in Chromium: search → service page → guide in another tone → re-check
 * the cancel link. The real catalog's links are external and never fetched here (its app
 * runs no link-check worker, so a re-check only queues); a second app with a loopback
 * catalog and a worker shows a finished check. Also axe and the service-page screenshots.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  describeViolations,
  freePort,
  launchChromium,
  overflowPx,
  SCREENSHOTS_DIR,
  seriousAxeViolations,
  watchedPage,
} from '../helpers/browser.ts';
import { loopbackCatalog } from '../helpers/catalog.ts';
import { type HttpTarget, startHttpTarget } from '../helpers/http-target.ts';

let real: TestApp;
let realBase: string;
let loop: TestApp;
let loopBase: string;
let target: HttpTarget;
let browser: Browser;
let context: BrowserContext;

async function listening(t: TestApp, port: number) {
  await t.app.listen({ port, host: '127.0.0.1' });
  return `http://127.0.0.1:${port}`;
}

before(async () => {
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  const p1 = await freePort();
  real = await startTestApp({
    env: { BASE_URL: `http://127.0.0.1:${p1}`, LOG_LEVEL: 'warn' },
    runtime: { worker: false },
  });
  realBase = await listening(real, p1);

  target = await startHttpTarget();
  const p2 = await freePort();
  loop = await startTestApp({
    env: { BASE_URL: `http://127.0.0.1:${p2}`, LOG_LEVEL: 'warn', OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${target.port}` },
    catalog: loopbackCatalog([{ slug: 'loopback-plan', url: `${target.origin}/account/cancel` }]),
    runtime: { queueTiming: { pollingIntervalSeconds: 0.5, heartbeatSeconds: 10, superviseIntervalSeconds: 1 } },
  });
  loopBase = await listening(loop, p2);

  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
});

after(async () => {
  await browser?.close();
  await real?.close();
  await loop?.close();
  await target?.close();
});

describe('catalog pages in a browser', () => {
  test('search, open a service, switch the guide tone, and queue a link re-check', async () => {
    const { page, problems } = await watchedPage(context);
    await page.goto(`${realBase}/services`);
    await page.getByLabel('Service name or website').fill('netflix');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/services\?q=netflix/);
    await page
      .getByRole('link', { name: /^Netflix/ })
      .first()
      .click();
    await page.waitForURL(/\/services\/netflix$/);
    assert.equal((await page.getByRole('heading', { level: 1 }).textContent()) ?? '', 'How to cancel Netflix');

    const neutral = (await page.locator('#guide-explanation').textContent()) ?? '';
    await page.getByLabel('Reassuring').check();
    await page.locator('#guide-status').getByText('Showing the reassuring guide.').waitFor();
    const reassuring = (await page.locator('#guide-explanation').textContent()) ?? '';
    assert.notEqual(reassuring, neutral);
    const api = (await (
      await fetch(`${realBase}/api/v1/guide`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ slug: 'netflix', options: { tone: 'reassuring' } }),
      })
    ).json()) as { data: { explanation: string } };
    assert.equal(reassuring, api.data.explanation);
    await page.getByLabel('Terse').check();
    await page.locator('#guide-status').getByText('Showing the terse guide.').waitFor();
    assert.equal(
      await page.locator('#guide-steps > li').count(),
      real.catalog.bySlug.get('netflix')!.record.steps.length,
    );
    // each step still says where it stands after the rewording
    assert.equal(
      await page.locator('#guide-steps > li > .fact-state').count(),
      real.catalog.bySlug.get('netflix')!.record.steps.length,
    );

    const queued = page.waitForResponse((r) => r.url().endsWith('/api/v1/link-check'));
    // never checked here, so the page offers a first check rather than a re-check
    assert.equal(await page.getByRole('button', { name: 'Re-check this link' }).count(), 0);
    await page.locator('#recheck').getByText('Check this link').click();
    assert.equal((await queued).status(), 202);
    await page
      .locator('#link-status')
      .getByText(/Queued: checking the links/)
      .waitFor();
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a re-check that finishes shows its outcome on the page', async () => {
    const { page, problems } = await watchedPage(context);
    await page.goto(`${loopBase}/services/loopback-plan`);
    assert.match((await page.locator('#link-status').textContent()) ?? '', /has not been checked yet/);
    const links = page.getByRole('region', { name: 'Links and their checks' });
    const rows = links.locator('tbody tr');
    assert.equal(await rows.getByRole('button', { name: 'Check this link' }).count(), await rows.count());
    // "Check this link" in the table checks the record's links and fills in each result
    await rows.first().getByRole('button', { name: 'Check this link' }).click();
    await page
      .locator('#link-status')
      .getByText(/^Last checked .*: working \(HTTP 200\)\.$/)
      .waitFor({ timeout: 15_000 });
    assert.match((await rows.first().textContent()) ?? '', /working, checked \d{1,2} \w{3} 20\d\d/);
    assert.equal(await links.getByText('Not checked yet', { exact: true }).count(), 0);
    assert.equal(await page.locator('#recheck').textContent(), 'Re-check this link');
    assert.ok(target.seen.some((s) => s.url === '/account/cancel'));
    // and the server renders the same status on the next visit
    await page.reload();
    assert.match((await page.locator('#link-status').textContent()) ?? '', /working \(HTTP 200\)/);
    assert.equal(await page.getByRole('button', { name: 'Check this link', exact: true }).count(), 0);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the service page has no serious accessibility violations, light or dark, and fits 360 px', async () => {
    const { page, problems } = await watchedPage(context);
    await page.goto(`${realBase}/services/adobe-creative-cloud`);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const v = await seriousAxeViolations(page);
      assert.equal(v.length, 0, `${colorScheme}:\n${describeViolations(v)}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.screenshot({ path: join(SCREENSHOTS_DIR, 'service-desktop.png'), fullPage: true });
    await page.setViewportSize({ width: 360, height: 740 });
    assert.ok((await overflowPx(page)) <= 0, 'no sideways scroll');
    await page.screenshot({ path: join(SCREENSHOTS_DIR, 'service-mobile.png'), fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the services index and its search work without JavaScript', async () => {
    const noJs = await browser.newContext({ javaScriptEnabled: false });
    const page = await noJs.newPage();
    await page.goto(`${realBase}/services?cat=gyms`);
    await page.getByLabel('Service name or website').fill('planet');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/q=planet/);
    await page.getByRole('link', { name: /Planet Fitness/ }).click();
    assert.match((await page.getByRole('heading', { level: 1 }).textContent()) ?? '', /Planet Fitness/);
    assert.ok((await page.locator('#guide-steps > li').count()) >= 2);
    assert.equal(await page.locator('#recheck').isVisible(), false);

    // The tool page explains itself without JavaScript, and cannot send a password anywhere.
    await page.goto(`${realBase}/`);
    // (CDP's script switch does not make the parser render <noscript>, so its text is checked in the source.)
    assert.match(await page.content(), /<noscript>.*The scan runs live in your browser and needs JavaScript\./s);
    assert.equal(await page.getByRole('button', { name: 'Scan my inbox' }).isDisabled(), true);
    assert.equal(await page.locator('.help-list li:visible').count(), await page.locator('.help-list li').count());
    await noJs.close();
  });

  test('a service page shows the source of each step, the exits by phone, letter and chat, the rights and every link', async () => {
    const { page, problems } = await watchedPage(context);
    await page.goto(`${realBase}/services/sky`);
    const r = real.catalog.bySlug.get('sky')!.record;
    const steps = page.locator('#guide-steps > li');
    assert.equal(await steps.count(), r.steps.length);
    for (let i = 0; i < r.steps.length; i++) {
      const state = steps.nth(i).locator('.fact-state');
      assert.match(
        (await state.textContent()) ?? '',
        /^Confirmed by How to cancel your subscription \(Sky UK\), read 26 November 2026 \[1\]$/,
      );
      assert.equal(
        await state.getByRole('link', { name: 'How to cancel your subscription' }).getAttribute('href'),
        r.sources[0]!.url,
      );
    }
    const exits = page.getByRole('region', { name: 'Other ways to cancel' });
    const phone = r.cancel.contacts!.find((c) => c.type === 'phone')!.phone!;
    assert.equal(await exits.getByRole('link', { name: phone }).count(), 1);
    assert.match((await exits.locator('address').textContent()) ?? '', /PO Box 43/);
    await exits.getByText('By chat:').waitFor();
    const rights = page.getByRole('region', { name: 'Your rights in the United Kingdom' });
    await rights.getByRole('heading', { name: 'Disputing the charge with your card issuer' }).waitFor();
    assert.ok((await rights.getByRole('link').count()) >= 1);
    const links = page.getByRole('region', { name: 'Links and their checks' });
    assert.equal(
      await links.locator('tbody tr').count(),
      new Set(
        [
          r.cancel.url,
          r.cancel.help_url,
          r.website,
          ...r.steps.map((s) => s.url),
          ...r.sources.map((s) => s.url),
        ].filter(Boolean),
      ).size,
    );
    assert.equal(
      await links.getByText('Not checked yet', { exact: true }).count(),
      await links.locator('tbody tr').count(),
    );
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const v = await seriousAxeViolations(page);
      assert.equal(v.length, 0, `${colorScheme}:\n${describeViolations(v)}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 360, height: 740 });
    assert.ok((await overflowPx(page)) <= 0, 'no sideways scroll');
    await page.screenshot({ path: join(SCREENSHOTS_DIR, 'service-evidence-mobile.png'), fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('after a check the links table shows each link working, with the time of the check', async () => {
    const res = await fetch(`${loopBase}/api/v1/link-check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'loopback-plan' }),
    });
    assert.equal(res.status, 202);
    const until = Date.now() + 15_000;
    for (;;) {
      const rec = (await (await fetch(`${loopBase}/api/v1/services/loopback-plan`)).json()) as {
        data: { links: { check: { checked_at: string } | null }[] };
      };
      if (rec.data.links.every((l) => l.check)) break;
      assert.ok(Date.now() < until, 'the check finishes');
      await new Promise((r) => setTimeout(r, 100));
    }
    const { page, problems } = await watchedPage(context);
    await page.goto(`${loopBase}/services/loopback-plan`);
    const row = page.getByRole('region', { name: 'Links and their checks' }).locator('tbody tr').first();
    assert.match(
      (await row.textContent()) ?? '',
      /cancel page, websiteworking, checked \d{1,2} \w{3} 20\d\d, \d\d:\d\d UTC/,
    );
    assert.deepEqual(problems, []);
    await page.close();
  });
});
