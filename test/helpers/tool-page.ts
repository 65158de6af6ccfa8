/**
 * Driving the inbox tool on `/` in a browser test: the "Other (IMAP)" form filled for a private
 * Dovecot on loopback, and a scan run to its end.
 */
import type { Page } from 'playwright-core';

export interface ImapAccount {
  port: number;
  user: string;
  password: string;
}

/** Fills the form for an IMAP server on 127.0.0.1 (implicit TLS on `port`); starts nothing. */
export async function fillImapForm(page: Page, account: ImapAccount): Promise<void> {
  await page.getByLabel('Other (IMAP)').check();
  await page.getByLabel('IMAP server').fill('127.0.0.1');
  await page.getByLabel('Port', { exact: true }).first().fill(String(account.port));
  await page.getByLabel('Email address').fill(account.user);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
}

/** Presses "Scan my inbox" and waits until the status line reports what was found. */
export async function scanToEnd(page: Page, timeout = 30_000): Promise<void> {
  await page.getByRole('button', { name: 'Scan my inbox' }).click();
  await page
    .locator('#status')
    .getByText(/^Found \d+ subscriptions/)
    .waitFor({ timeout });
}
