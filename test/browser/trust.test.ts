/**
 * The trust pages in Chromium: reachable from the footer of every kind of page, readable at
 * 360 px without sideways scrolling, and free of serious accessibility violations in light
 * and dark. Also their screenshots.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { loadBlog } from '../../src/web/blog/content.ts';
import {
  describeViolations,
  overflowPx,
  SCREENSHOTS_DIR,
  seriousAxeViolations,
  watchedPage,
  wideElements,
} from '../helpers/browser.ts';
import { type SiteBrowser, startSiteBrowser } from '../helpers/site-browser.ts';

let base: string;
let browser: Browser;

let site: SiteBrowser;

before(async () => {
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  site = await startSiteBrowser();
  ({ base, browser } = site);
});

after(() => site?.close());

const TRUST = ['/privacy', '/security', '/about'];

describe('the trust pages in a browser', () => {
  test('every kind of page links them in its footer, and following the link opens the page', async () => {
    const context = await browser.newContext();
    const { page, problems } = await watchedPage(context);
    const blog = await loadBlog();
    const pages = [
      '/',
      '/services',
      '/services/netflix',
      '/blog/',
      ...blog.articles.map((a) => `/blog/${a.slug}/`),
      '/docs',
      ...TRUST,
    ];
    const links = [
      ['Privacy', '/privacy'],
      ['Security', '/security'],
      ['About', '/about'],
    ] as const;
    for (const [i, path] of pages.entries()) {
      await page.goto(`${base}${path}`);
      const footer = page.getByRole('navigation', { name: 'Footer' });
      for (const [name, href] of links)
        assert.equal(
          await footer.getByRole('link', { name, exact: true }).getAttribute('href'),
          href,
          `${path}: ${name}`,
        );
      // follow one of them from each page, in turn
      const [name, href] = links[i % links.length]!;
      await footer.getByRole('link', { name, exact: true }).click();
      await page.waitForURL(`${base}${href}`);
      assert.ok((await page.getByRole('heading', { level: 1 }).textContent())?.length, `${path} → ${href}`);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('no serious accessibility violations in light or dark, and no sideways scrolling at 360 px', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const { page, problems } = await watchedPage(context);
    for (const path of TRUST) {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${base}${path}`);
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        const v = await seriousAxeViolations(page);
        assert.equal(v.length, 0, `${path} ${colorScheme}:\n${describeViolations(v)}`);
      }
      await page.emulateMedia({ colorScheme: 'light' });
      const name = path.slice(1);
      await page.screenshot({ path: join(SCREENSHOTS_DIR, `${name}-desktop.png`), fullPage: true });
      await page.setViewportSize({ width: 360, height: 740 });
      const px = await overflowPx(page);
      assert.ok(px <= 0, `${path} is ${px}px too wide at 360px: ${(await wideElements(page)).join('; ')}`);
      if (path === '/privacy')
        await page.screenshot({ path: join(SCREENSHOTS_DIR, `${name}-mobile.png`), fullPage: true });
    }
    assert.deepEqual(problems, []);
    await context.close();
  });
});
