/**
 * A signed-in Microsoft account at the mail servers: IMAP and SMTP sign in with SASL XOAUTH2
 * (the address and a bearer access token; imapflow, the lean reader and nodemailer each encode
 * it). Each connection takes a token fresh at that moment (account.ts refreshes it when it is
 * about to expire); a token the server refuses is renewed once and tried again, and only a
 * second refusal is reported: OAUTH_TOKEN_REFUSED. These wrappers serve every transport (the
 * /ws channel, the MCP tools).
 */
import type { ImapCredentials } from '../mailbox/imap-connect.ts';
import type { Endpoint } from '../mailbox/providers.ts';
import { runScan, type ScanHooks, type ScanOptions, type ScanResult } from '../mailbox/scan.ts';
import type { OutboundGuard } from '../outbound/guard.ts';
import type { TokenSource } from '../unsubscribe/mailto.ts';
import type { OAuthAccount } from './account.ts';
import { type OAuthErrorCode, type OAuthFailure, oauthFailure } from './errors.ts';

/** A scan's result, or why the account could not be signed in to the mailbox. */
export type AccountScanResult = ScanResult | { ok: false; code: OAuthErrorCode; message: string; authenticated: false };

const notSignedIn = (f: OAuthFailure): AccountScanResult => ({
  ok: false,
  code: f.code,
  message: f.message,
  authenticated: false,
});

/** The header scan of runScan, signed in with the account's access token. */
export async function scanWithAccount(
  account: OAuthAccount,
  imap: Endpoint,
  guard: OutboundGuard,
  opts: ScanOptions,
  hooks: ScanHooks,
): Promise<AccountScanResult> {
  const first = await account.accessToken();
  if (!first.ok) return notSignedIn(first);
  const scan = (token: string) => runScan(imap, { user: account.email, accessToken: token }, guard, opts, hooks);
  const r = await scan(first.token);
  // AUTH_FAILED is the server refusing the token (a sign-in costs no scan, scan.ts): renew once.
  if (r.ok || r.code !== 'AUTH_FAILED') return r;
  const renewed = await account.renew(first.token);
  if (!renewed.ok) return notSignedIn(renewed);
  const again = await scan(renewed.token);
  if (again.ok || again.code !== 'AUTH_FAILED') return again;
  return notSignedIn(oauthFailure('OAUTH_TOKEN_REFUSED'));
}

/** IMAP credentials with a token fresh now (for a session opened later, e.g. the archiver's). */
export async function imapCredentials(account: OAuthAccount): Promise<ImapCredentials | { error: string }> {
  const t = await account.accessToken();
  return t.ok ? { user: account.email, accessToken: t.token } : { error: t.message };
}

/** The account as nodemailer's token source (mailto unsubscriptions, src/unsubscribe/mailto.ts). */
export function tokenSource(account: OAuthAccount): TokenSource {
  const value = (r: Awaited<ReturnType<OAuthAccount['accessToken']>>) =>
    r.ok ? { token: r.token, expiresAt: r.expiresAt } : null;
  return {
    current: async () => value(await account.accessToken()),
    renew: async (refused) => value(await account.renew(refused)),
  };
}
