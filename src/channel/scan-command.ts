/**
 * One `scan` for a session: checks the allowance, runs the header scan (src/mailbox/scan.ts)
 * and reports through `emit` as it goes. The allowance is taken only once the sign-in worked
 * and the folders were found (the scan's `started` hook). Returns what an unsubscribe needs
 * later, or null when the scan ended without a result (the error has been emitted).
 */
import type { Logger } from 'pino';
import type { AttemptLimits } from '../limits/attempt-limits.ts';
import type { ImapCredentials } from '../mailbox/imap-connect.ts';
import { type Endpoint, OAUTH_PROVIDER, presetFor } from '../mailbox/providers.ts';
import { runScan, type ScanHooks, type ScanOptions, type ScanUidIndex } from '../mailbox/scan.ts';
import type { ScanCaps } from '../mailbox/scan-caps.ts';
import type { ServiceMatch } from '../mailbox/types.ts';
import type { OAuthAccount } from '../oauth/account.ts';
import { OAUTH_ERRORS } from '../oauth/errors.ts';
import { scanWithAccount } from '../oauth/mail.ts';
import type { OutboundGuard } from '../outbound/guard.ts';
import type { ScanQuota } from '../quota/scan-quota.ts';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../storage/unavailable.ts';
import type { ScanMessage, ServerMessage, Subscription } from './protocol.ts';
import { latestUnsubscribes, markVerification, summarizeVerification } from './verification.ts';

export interface ScanDeps {
  guard: OutboundGuard;
  quota: ScanQuota;
  /** failed sign-ins, scans and unsubscribes per address or client IP (src/limits/) */
  attempts: AttemptLimits;
  logger: Logger;
  matchService: (domain: string) => ServiceMatch | null;
  scanTimeoutMs: number;
  batchSize: number;
  /** bounds on one scan's work (SCAN_MAX_*) */
  caps: ScanCaps;
  /** the mail servers of the Microsoft sign-in (OAUTH_IMAP_URL, OAUTH_SMTP_URL), null when not set up */
  oauth: { imap: Endpoint; smtp: Endpoint } | null;
}

/** What an unsubscribe or an audit needs from the last scan, held in memory only. */
export interface LastScan {
  email: string;
  creds: ImapCredentials;
  imap: Endpoint;
  smtp: Endpoint | null;
  subscriptions: Map<string, Subscription>;
  uids: ScanUidIndex;
  /** the Microsoft sign-in the scan used: later connections take a fresh token from it */
  account: OAuthAccount | null;
  /** messages read, the folders read, the period asked for and when the scan ended */
  scanned: number;
  mailboxes: string[];
  since: Date | null;
  finishedAt: Date;
}

export type Emit = (msg: ServerMessage) => void;

const WIRE_CAP = { messages: 'messages', headerBytes: 'header_bytes', subscriptions: 'subscriptions' } as const;

/** Who sent a command: limits count per client IP (Fastify's request.ip, TRUST_PROXY aware). */
export interface Client {
  ip: string;
}

/** A refusal of the attempt limits (src/limits/): nothing was attempted; `retry_after` says when. */
export function limited(
  code: 'TOO_MANY_SIGN_IN_FAILURES' | 'TOO_MANY_SCANS' | 'TOO_MANY_UNSUBSCRIBES',
  retryAfter: number,
  message: string,
): ServerMessage {
  return { type: 'error', code, message: `${message} Try again in ${minutes(retryAfter)}.`, retry_after: retryAfter };
}

const minutes = (s: number) => (s < 90 ? `${s} seconds` : `${Math.ceil(s / 60)} minutes`);

const quotaExceeded = (resets_at: string): ServerMessage => ({
  type: 'error',
  code: 'SCAN_QUOTA_EXCEEDED',
  message: `No scans left today for this mailbox; the allowance resets at ${resets_at}.`,
  resets_at,
});

/** Where and as whom a scan signs in: a preset or custom server with a password, or Microsoft. */
type Mailbox =
  | { email: string; creds: ImapCredentials; imap: Endpoint; smtp: Endpoint | null; account: null }
  | { email: string; creds: ImapCredentials; imap: Endpoint; smtp: Endpoint; account: OAuthAccount };

function mailboxFor(m: ScanMessage, deps: ScanDeps, account: OAuthAccount | null): Mailbox | ServerMessage {
  if (m.provider === OAUTH_PROVIDER.id) {
    if (!deps.oauth) return oauthError('OAUTH_NOT_CONFIGURED');
    if (!account?.active) return oauthError('OAUTH_SESSION_EXPIRED');
    // The address is the one Microsoft vouched for, whatever the message says.
    const { imap, smtp } = deps.oauth;
    return { email: account.email, creds: { user: account.email }, imap, smtp, account };
  }
  const preset = presetFor(m.provider);
  return {
    email: m.email!,
    creds: { user: m.email!, password: m.password },
    imap: preset ? preset.imap : { host: m.host!, port: m.port!, tls: m.tls! },
    smtp: preset ? preset.smtp : (m.smtp ?? null),
    account: null,
  };
}

const oauthError = (code: 'OAUTH_NOT_CONFIGURED' | 'OAUTH_SESSION_EXPIRED'): ServerMessage => ({
  type: 'error',
  code,
  message: OAUTH_ERRORS[code],
});

/** A refresh can only end a sign-in, never start one: the codes of a starting sign-in do not occur here. */
const wsCode = <C extends string>(
  code: C,
):
  | Exclude<C, 'OAUTH_CONSENT_REFUSED' | 'OAUTH_DEVICE_CODE_EXPIRED' | 'OAUTH_SIGN_IN_FAILED'>
  | 'OAUTH_SESSION_EXPIRED' =>
  code === 'OAUTH_CONSENT_REFUSED' || code === 'OAUTH_DEVICE_CODE_EXPIRED' || code === 'OAUTH_SIGN_IN_FAILED'
    ? 'OAUTH_SESSION_EXPIRED'
    : (code as Exclude<C, 'OAUTH_CONSENT_REFUSED' | 'OAUTH_DEVICE_CODE_EXPIRED' | 'OAUTH_SIGN_IN_FAILED'>);

export async function scanForSession(
  m: ScanMessage,
  deps: ScanDeps,
  signal: AbortSignal,
  emit: Emit,
  account: OAuthAccount | null,
  client: Client,
): Promise<LastScan | null> {
  const box = mailboxFor(m, deps, account);
  if ('type' in box) {
    emit(box);
    return null;
  }
  const { email, imap } = box;
  const before = await deps.quota.status(email);
  if (before.scans_left <= 0) {
    emit(quotaExceeded(before.resets_at));
    return null;
  }
  // Attempt limits before any connection (docs/security.md): a password sign-in reserves a
  // failure for the address and the IP, given back unless the server refuses the password.
  const signIn = box.account ? null : await deps.attempts.signIn(email, client.ip);
  if (signIn && !signIn.ok) {
    emit(
      limited(
        'TOO_MANY_SIGN_IN_FAILURES',
        signIn.retryAfter,
        signIn.per === 'address'
          ? 'Too many failed sign-ins for this address in the last hour, so we are not trying again yet.'
          : 'Too many failed sign-ins from your network in the last hour, so we are not trying again yet.',
      ),
    );
    return null;
  }
  const started = await deps.attempts.scan(client.ip);
  if (!started.ok) {
    await signIn?.settle('other');
    emit(
      limited('TOO_MANY_SCANS', started.retryAfter, 'Too many scans were started from your network in the last hour.'),
    );
    return null;
  }
  const subs = new Map<string, Subscription>();
  const previous = m.previous_unsubscribes ?? [];
  let refusedUntil = before.resets_at;
  let storeDown = false;
  const opts: ScanOptions = {
    mailboxes: m.mailboxes,
    since: m.since ? new Date(m.since) : undefined,
    signal,
    matchService: deps.matchService,
    timeoutMs: deps.scanTimeoutMs,
    batchSize: deps.batchSize,
    caps: deps.caps,
    unsubscribedAt: latestUnsubscribes(previous),
  };
  const hooks: ScanHooks = {
    progress: (p) => emit({ type: 'progress', ...p }),
    subscription: (s) => {
      const marked = markVerification(s, previous);
      subs.set(s.id, marked);
      emit({ type: 'subscription', subscription: marked });
    },
    started: async () => {
      // The quota lives in the database; if it cannot be reached the scan does not start.
      const taken = await deps.quota.take(email).catch((err: unknown) => {
        if (!isDatabaseUnavailable(err)) throw err;
        storeDown = true;
        return null;
      });
      if (taken === null) return false;
      if (!taken.ok) {
        refusedUntil = taken.resets_at;
        return false;
      }
      emit({ type: 'quota', email, scans_left: taken.scans_left, resets_at: taken.resets_at });
      return true;
    },
  };
  const scanning = box.account
    ? scanWithAccount(box.account, imap, deps.guard, opts, hooks)
    : runScan(imap, box.creds, deps.guard, opts, hooks);
  const result = await scanning.catch(async (err: unknown) => {
    await signIn?.settle('other');
    throw err;
  });
  // Only the server refusing the password counts as a failed sign-in.
  await signIn?.settle(!result.ok && result.code === 'AUTH_FAILED' ? 'refused' : 'other');
  if (!result.ok) {
    deps.logger.info({ code: result.code }, 'scan ended with an error');
    emit(
      result.code === 'REFUSED' && storeDown
        ? {
            type: 'error',
            code: 'SERVICE_UNAVAILABLE',
            message:
              'The service cannot reach its database right now, so the scan did not start. Try again in a few seconds.',
            retry_after: DATABASE_RETRY_AFTER_SECONDS,
          }
        : result.code === 'REFUSED'
          ? quotaExceeded(refusedUntil)
          : { type: 'error', code: wsCode(result.code), message: result.message },
    );
    return null;
  }
  deps.logger.info({ scanned: result.scanned, subscriptions: subs.size, cancelled: result.cancelled }, 'scan done');
  emit({
    type: 'done',
    scanned: result.scanned,
    subscriptions: subs.size,
    duration_ms: result.durationMs,
    cancelled: result.cancelled,
    mailboxes: result.mailboxes,
    capped: result.capped.map((c) => ({ cap: WIRE_CAP[c.cap], limit: c.limit, count: c.count })),
    verification: summarizeVerification(previous, subs),
  });
  return {
    ...box,
    subscriptions: subs,
    uids: result.uids,
    scanned: result.scanned,
    mailboxes: result.mailboxes.map((b) => b.path),
    since: m.since ? new Date(m.since) : null,
    finishedAt: new Date(),
  };
}
