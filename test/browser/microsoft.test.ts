/**
 * "Sign in with Microsoft" on `/`, in Chromium: the person picks Outlook / Microsoft 365,
 * presses the button, signs in and consents at the identity provider (the test provider's
 * own pages, as Microsoft's would be), comes back signed in, scans without typing an address
 * or password, and signs out. The mailbox is a private Dovecot that checks every token.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { generateMailbox, type MailboxTruth } from '../fixtures/mail-generator.ts';
import { describeViolations, launchChromium, seriousAxeViolations, watchedPage } from '../helpers/browser.ts';
import { type OAuthStack, startOAuthStack } from '../helpers/oauth-stack.ts';

const ALICE = 'alice@example.test';

describe('signing in with Microsoft on the page', () => {
  let s: OAuthStack;
  let truth: MailboxTruth;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];

  before(async () => {
    const mail = generateMailbox({ seed: 43, lists: 6, messagesPerList: [1, 3], plain: 2, nasty: false });
    truth = mail.truth;
    s = await startOAuthStack({ mail: { [ALICE]: mail.messages } });
    browser = await launchChromium();
    // the identity provider serves https with the tests' own CA
    context = await browser.newContext({ ignoreHTTPSErrors: true });
    // loopback only: the provider's development pages ask for a web font, which is not ours to fetch
    await context.route(
      (u) => u.hostname !== '127.0.0.1',
      (r) => r.abort(),
    );
    ({ page, problems } = await watchedPage(context));
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('choosing Outlook shows the sign-in instead of the address and password fields', async () => {
    await page.goto(`${s.base}/`);
    await page.getByLabel('Outlook / Microsoft 365').check();
    assert.equal(await page.locator('#password').isVisible(), false);
    assert.equal(await page.locator('#email').isVisible(), false);
    assert.equal(await page.locator('#ms-sign-in').isVisible(), true);
    assert.equal(await page.locator('#scan-button').isDisabled(), true, 'nothing to scan with before signing in');
    const serious = await seriousAxeViolations(page);
    assert.deepEqual(serious, [], describeViolations(serious));
  });

  test('the sign-in goes to the provider and back, and the page shows who is signed in', async () => {
    await page.locator('#ms-sign-in').click();
    await page.waitForURL((u) => u.origin !== s.base);
    // oidc-provider's development login and consent forms
    await page.locator('input[name="login"]').fill(ALICE);
    await page.locator('input[name="password"]').fill('any');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').click(); // consent
    await page.waitForURL(`${s.base}/`);
    await page.locator('#ms-signed-in').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#ms-email').textContent(), ALICE);
    assert.equal(await page.getByLabel('Outlook / Microsoft 365').isChecked(), true);
    assert.equal(await page.locator('#scan-button').isDisabled(), false);
  });

  test('the scan runs with the sign-in and lists every subscription', async () => {
    await page.locator('#scan-button').click();
    await page.locator('#results tbody tr').first().waitFor();
    await page.waitForFunction(`document.querySelectorAll('#results tbody tr').length === ${truth.lists.length}`);
    await page.locator('#scan-button:not([disabled])').waitFor();
    assert.match((await page.locator('#progress-label').textContent()) ?? '', /^Done/);
  });

  test('signing out forgets the sign-in and the page asks to sign in again', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    // RP-initiated logout: the provider asks to confirm ending its own session, then sends the person back
    await page.waitForURL((u) => u.origin !== s.base);
    await page.locator('button[name="logout"][value="yes"]').click();
    await page.waitForURL((u) => u.origin === s.base);
    await page.getByLabel('Outlook / Microsoft 365').check();
    await page.locator('#ms-sign-in').waitFor({ state: 'visible' });
    const session = await page.evaluate('fetch("/auth/microsoft/session").then((r) => r.json())');
    assert.deepEqual(session, { configured: true, signed_in: false });
    // optout's own pages ran cleanly (the provider's pages are not ours to judge)
    const ours = problems.filter((p) => p.includes(s.base) || p.startsWith('pageerror') || p.startsWith('csp'));
    assert.deepEqual(ours, []);
  });
});
