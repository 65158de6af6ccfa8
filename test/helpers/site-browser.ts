/**
 * The app listening on a free loopback port (no link-check worker, quiet log) and a Chromium
 * to look at it: the set-up of the browser tests that read pages only (site, trust, blog).
 */
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from './app.ts';
import { freePort, launchChromium } from './browser.ts';

export interface SiteBrowser {
  t: TestApp;
  /** `http://127.0.0.1:<port>`, also the app's BASE_URL */
  base: string;
  browser: Browser;
  close(): Promise<void>;
}

export async function startSiteBrowser(): Promise<SiteBrowser> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ env: { BASE_URL: base, LOG_LEVEL: 'warn' }, runtime: { worker: false } });
  await t.app.listen({ port, host: '127.0.0.1' });
  const browser = await launchChromium();
  return {
    t,
    base,
    browser,
    async close() {
      await browser.close();
      await t.close();
    },
  };
}
