/**
 * The blog (and the other static pages) in Chromium: every page loads with no console
 * error, no failed request and no CSP violation; an article passes axe in light and
 * dark; article screenshots for docs/screenshots/.
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
} from '../helpers/browser.ts';
import { type SiteBrowser, startSiteBrowser } from '../helpers/site-browser.ts';

const ARTICLE = '/blog/how-to-unsubscribe-all-emails/';

let base: string;
let browser: Browser;

let site: SiteBrowser;

before(async () => {
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  site = await startSiteBrowser();
  ({ base, browser } = site);
});

after(() => site?.close());

describe('the blog in a browser', () => {
  test('every blog page (and the other pages) loads cleanly: no console errors, failed requests or CSP violations', async () => {
    const blog = await loadBlog();
    const paths = ['/blog/', ...blog.articles.map((a) => `/blog/${a.slug}/`), '/', '/services', '/docs', '/nope'];
    const context = await browser.newContext();
    for (const path of paths) {
      const { page, problems } = await watchedPage(context);
      const res = await page.goto(`${base}${path}`, { waitUntil: 'load' });
      assert.equal(res?.status(), path === '/nope' ? 404 : 200, path);
      if (path.startsWith('/blog/') && path !== '/blog/') {
        const a = blog.bySlug.get(path.split('/')[2]!)!;
        assert.equal(await page.title(), `${a.title} · optout`);
        assert.equal((await page.getByRole('heading', { level: 1 }).textContent()) ?? '', a.title);
      }
      const expected = path === '/nope' ? [`HTTP 404: ${base}/nope`] : [];
      assert.deepEqual(
        problems.filter((p) => !p.startsWith('console.error: Failed to load resource')),
        expected,
        path,
      );
      await page.close();
    }
    await context.close();
  });

  test('an article has no serious accessibility violations in light or dark, and fits 360 px', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const { page, problems } = await watchedPage(context);
    await page.goto(`${base}${ARTICLE}`);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const v = await seriousAxeViolations(page);
      assert.equal(v.length, 0, `${colorScheme}:\n${describeViolations(v)}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.screenshot({ path: join(SCREENSHOTS_DIR, 'blog-desktop.png'), fullPage: true });
    await page.setViewportSize({ width: 360, height: 740 });
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.ok((await overflowPx(page)) <= 0, 'no sideways scroll');
    await page.screenshot({ path: join(SCREENSHOTS_DIR, 'blog-mobile-dark.png'), fullPage: true });
    assert.deepEqual(problems, []);
    await context.close();
  });
});
