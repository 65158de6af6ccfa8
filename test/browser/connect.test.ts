/**
 * The scan hand-off page in Chromium, as the person meets it: opened from the link an agent
 * relayed, no serious axe violations (light and dark, narrow), the address fixed, a wrong app
 * password said in an announced message tied to the field, the right one starts the scan and the
 * page says it is done; then the wipe button. Nothing the page loads fails or breaks the CSP.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { listMessages } from '../fixtures/list-mail.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  describeViolations,
  freePort,
  launchChromium,
  overflowPx,
  seriousAxeViolations,
  watchedPage,
} from '../helpers/browser.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { trustTestCa } from '../helpers/tls-ca.ts';

const USER = 'erin@example.test';
const PASSWORD = 'erin-app-password';

let dovecot: Dovecot;
let t: TestApp;
let base: string;
let browser: Browser;
let page: Page;
let problems: string[];

before(async () => {
  trustTestCa();
  dovecot = await startDovecot({
    users: [
      {
        user: USER,
        password: PASSWORD,
        mailboxes: { INBOX: listMessages({ from: 'news@letters.example', oneClick: 'https://letters.example/u' }) },
      },
    ],
  });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await startTestApp({
    env: { BASE_URL: base, LOG_LEVEL: 'warn', OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${dovecot.imapsPort}` },
    runtime: { worker: false },
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
  ({ page, problems } = await watchedPage(await browser.newContext({ viewport: { width: 390, height: 800 } })));
});
after(async () => {
  await browser?.close();
  await t?.close();
  await dovecot?.stop();
});

const axeClean = async (what: string) => {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const v = await seriousAxeViolations(page);
    assert.deepEqual(v, [], `${what} (${scheme}): ${describeViolations(v)}`);
  }
  assert.equal(await overflowPx(page), 0, `${what}: nothing scrolls sideways`);
};

test('the person signs in on the hand-off page: a wrong password is announced, the right one scans', async () => {
  const made = t.runtime.handoffs.create({
    registrationId: 'reg_browser',
    email: USER,
    provider: 'custom',
    imap: { host: '127.0.0.1', port: dovecot.imapsPort, tls: 'implicit' },
  });
  assert.ok(made.ok);
  const h = made.handoff;
  await page.goto(`${base}/connect?token=${h.connectToken}`);
  await axeClean('the sign-in form');
  const email = page.getByLabel('Email address');
  assert.equal(await email.inputValue(), USER);
  assert.equal(await email.isEditable(), false, 'the page is bound to one address');

  await page.getByLabel('App password').fill('wrong-password');
  await page.getByRole('button', { name: 'Scan my mailbox' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  assert.equal(await page.getByLabel('App password').getAttribute('aria-invalid'), 'true');
  assert.match((await page.getByLabel('App password').getAttribute('aria-describedby')) ?? '', /sign-in-error/);
  await axeClean('the form with an error');

  await page.getByLabel('App password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Scan my mailbox' }).click();
  await page.getByRole('heading', { name: /Scanning your mailbox|Done/ }).waitFor();
  for (let i = 0; i < 100 && h.status !== 'done'; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(h.status, 'done');
  await page.goto(`${base}/connect?token=${h.connectToken}`);
  await page.getByRole('heading', { name: 'Done' }).waitFor();
  assert.match((await page.getByRole('status').textContent()) ?? '', /found 1 sender/);
  await axeClean('the done page');

  await page.getByRole('button', { name: 'Stop and wipe now' }).click();
  await page.getByRole('heading', { name: 'Wiped' }).waitFor();
  assert.equal(h.session.ended, true);
  assert.equal(h.session.lastScan, null);
  assert.deepEqual(problems, []);
});
