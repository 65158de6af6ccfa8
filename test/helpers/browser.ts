/**
 * Debian's Chromium driven by playwright-core, for browser tests: never a browser
 * download. Pages are watched for console errors, uncaught exceptions, failed requests
 * and CSP violations, so a test can assert a page ran cleanly.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';

/**
 * Where the browser tests write their screenshots of test states: a temporary directory, so a
 * test run leaves the working tree as it was. The pictures in docs/screenshots/ are made by
 * `npm run screenshots` (scripts/screenshots.ts), from a first visit rather than test states.
 */
export const SCREENSHOTS_DIR = process.env.SCREENSHOTS_DIR
  ? resolve(process.env.SCREENSHOTS_DIR)
  : join(tmpdir(), 'optout-screenshots');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A free loopback port, for an app whose BASE_URL must be known before it listens. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

export interface Watched {
  page: Page;
  /** console errors, page errors, failed requests and CSP violations, in order */
  problems: string[];
}

/** A page that records everything that went wrong while it ran. */
export async function watchedPage(context: BrowserContext): Promise<Watched> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => {
    const why = r.failure()?.errorText ?? '';
    // a load cut short because the page navigated on (a favicon, say) is not a fault of the page
    if (why === 'net::ERR_ABORTED') return;
    problems.push(`requestfailed: ${r.url()} ${why}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  // Init scripts run through the DevTools protocol, outside the page's CSP. (In-page code is
  // written as strings: this project type-checks without the DOM library.)
  await page.exposeBinding('__cspViolation', (_src, text: string) => problems.push(`csp: ${text}`));
  await page.addInitScript(`document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolation(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline'));
  });`);
  return { page, problems };
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * Runs axe-core in the page and returns serious and critical violations. The page's CSP
 * forbids injected scripts, so axe is evaluated through the DevTools protocol instead.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as {
    violations: AxeViolation[];
  };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** How far the page is wider than its viewport (0 when nothing scrolls sideways). */
export const overflowPx = (page: Page) =>
  page.evaluate('document.documentElement.scrollWidth - innerWidth') as Promise<number>;

/** Elements that stick out past the viewport's right edge, for a failure message. */
export const wideElements = (page: Page) =>
  page.evaluate(`[...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > innerWidth + 1 && !e.closest('nav, .table-scroll, .table-wrap, .prose table'))
    .slice(0, 5).map((e) => e.tagName + '.' + e.className)`) as Promise<string[]>;

export const describeViolations = (vs: AxeViolation[]) =>
  vs.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`).join('\n');

/**
 * What makes a page need sideways scrolling on a narrow screen, for a "fits the screen" check:
 * every visible element whose box reaches past the viewport's left or right edge (unless a
 * clipping ancestor holds it), and every element that scrolls sideways inside itself — a table
 * in a scroll box is clipped, not reflowed (a code block, `pre`, may scroll). Visually hidden
 * elements (1 px, clipped) are skipped. Returns "tag.class (left–right px)" for a failure message.
 */
export const outsideViewport = (page: Page) =>
  page.evaluate(`(() => {
    const held = (e) => {
      for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.overflowX !== 'visible' || s.clip !== 'auto') return true;
      }
      return false;
    };
    const scrolls = (e) => {
      const s = getComputedStyle(e);
      return (s.overflowX === 'auto' || s.overflowX === 'scroll') && e.scrollWidth > e.clientWidth + 1 && !e.closest('pre');
    };
    const describe = (e, why) => {
      const r = e.getBoundingClientRect();
      return e.tagName.toLowerCase() + '.' + e.className + ' (' + Math.round(r.left) + '–' + Math.round(r.right) + why + ')';
    };
    const out = [];
    for (const e of document.querySelectorAll('body *')) {
      const r = e.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) continue;
      if (scrolls(e)) out.push(describe(e, ', scrolls sideways'));
      else if ((r.right > innerWidth + 0.5 || r.left < -0.5) && !held(e)) out.push(describe(e, ''));
    }
    return out.slice(0, 8);
  })()`) as Promise<string[]>;
