/**
 * The site's own pages in Chromium, as a person on a phone meets them: at 360 px wide nothing
 * scrolls sideways and no element reaches past the screen on `/`, `/services`, service pages,
 * the blog index and every article, and the trust pages; and axe finds no serious or critical
 * violation on the trust pages, `/services` and a service page, in light and dark.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { loadBlog } from '../../src/web/blog/content.ts';
import type { TestApp } from '../helpers/app.ts';
import { describeViolations, outsideViewport, seriousAxeViolations, watchedPage } from '../helpers/browser.ts';
import { type SiteBrowser, startSiteBrowser } from '../helpers/site-browser.ts';

let t: TestApp;
let base: string;
let browser: Browser;

let site: SiteBrowser;

before(async () => {
  site = await startSiteBrowser();
  ({ t, base, browser } = site);
});

after(() => site?.close());

// A service page of each shape: many links and no exits (Netflix), phone/letter/chat exits and
// rights (Sky), a long friction table and fees (Adobe), a record with prices when one has them.
const SERVICES = ['/services/netflix', '/services/sky', '/services/adobe-creative-cloud'];

describe('the site at 360 px', () => {
  test('no page scrolls sideways and no element is wider than the screen', async () => {
    const blog = await loadBlog();
    const priced = t.catalog.entries.find((e) => e.record.plans.some((p) => p.price));
    const paths = [
      '/',
      '/services',
      '/services?q=gym',
      ...SERVICES,
      ...(priced ? [`/services/${priced.record.slug}`] : []),
      '/blog/',
      ...blog.articles.map((a) => `/blog/${a.slug}/`),
      '/privacy',
      '/security',
      '/about',
      '/docs',
    ];
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const { page, problems } = await watchedPage(context);
    for (const path of paths) {
      await page.goto(`${base}${path}`);
      const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
      const outside = await outsideViewport(page);
      assert.ok(width <= 360, `${path} is ${width}px wide at 360px: ${outside.join('; ')}`);
      assert.deepEqual(outside, [], `${path}: elements past the screen's edge`);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe('accessibility', () => {
  test('axe finds no serious or critical violation on the trust pages, /services and a service page, light or dark', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const { page, problems } = await watchedPage(context);
    // one service page of every tier the catalog has, so each badge colour is checked
    const byTier = new Map(t.catalog.entries.map((e) => [e.friction.tier, `/services/${e.record.slug}`]));
    for (const path of [
      '/privacy',
      '/security',
      '/about',
      '/services',
      '/services?cat=gyms',
      ...SERVICES,
      ...byTier.values(),
    ]) {
      await page.goto(`${base}${path}`);
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        const v = await seriousAxeViolations(page);
        assert.equal(v.length, 0, `${path} ${colorScheme}:\n${describeViolations(v)}`);
      }
    }
    assert.deepEqual(problems, []);
    await context.close();
  });
});
