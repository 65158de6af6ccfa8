/**
 * One `scan` for a session: checks the allowance, runs the header scan (src/mailbox/scan.ts)
 * and reports through `emit` as it goes. The allowance is taken only once the sign-in worked
 * and the folders were found (the scan's `started` hook). Returns what an unsubscribe needs
 * later, or null when the scan ended without a result (the error has been emitted).
 */
import type { Logger } from 'pino';
import type { ImapCredentials } from '../mailbox/imap-connect.ts';
import { type Endpoint, presetFor } from '../mailbox/providers.ts';
import { runScan, type ScanUidIndex } from '../mailbox/scan.ts';
import type { ServiceMatch } from '../mailbox/types.ts';
import type { OutboundGuard } from '../outbound/guard.ts';
import type { ScanQuota } from '../quota/scan-quota.ts';
import type { ScanMessage, ServerMessage, Subscription } from './protocol.ts';
import { markVerification, summarizeVerification } from './verification.ts';

export interface ScanDeps {
  guard: OutboundGuard;
  quota: ScanQuota;
  logger: Logger;
  matchService: (domain: string) => ServiceMatch | null;
  scanTimeoutMs: number;
  batchSize: number;
}

/** What an unsubscribe needs from the last scan, held in memory only. */
export interface LastScan {
  email: string;
  creds: ImapCredentials;
  imap: Endpoint;
  smtp: Endpoint | null;
  subscriptions: Map<string, Subscription>;
  uids: ScanUidIndex;
}

export type Emit = (msg: ServerMessage) => void;

const quotaExceeded = (resets_at: string): ServerMessage => ({
  type: 'error',
  code: 'SCAN_QUOTA_EXCEEDED',
  message: `No scans left today for this mailbox; the allowance resets at ${resets_at}.`,
  resets_at,
});

export async function scanForSession(
  m: ScanMessage,
  deps: ScanDeps,
  signal: AbortSignal,
  emit: Emit,
): Promise<LastScan | null> {
  const preset = presetFor(m.provider);
  if (m.oauth_session || preset?.auth === 'oauth') {
    emit({
      type: 'error',
      code: 'INVALID_MESSAGE',
      message: 'scan.provider: sign-in with an OAuth session is not available for this provider',
    });
    return null;
  }
  const imap: Endpoint = preset ? preset.imap : { host: m.host!, port: m.port!, tls: m.tls! };
  const smtp: Endpoint | null = preset ? preset.smtp : (m.smtp ?? null);
  const before = await deps.quota.status(m.email);
  if (before.scans_left <= 0) {
    emit(quotaExceeded(before.resets_at));
    return null;
  }
  const creds: ImapCredentials = { user: m.email, password: m.password };
  const subs = new Map<string, Subscription>();
  const previous = m.previous_unsubscribes ?? [];
  let refusedUntil = before.resets_at;
  const result = await runScan(
    imap,
    creds,
    deps.guard,
    {
      mailboxes: m.mailboxes,
      since: m.since ? new Date(m.since) : undefined,
      signal,
      matchService: deps.matchService,
      timeoutMs: deps.scanTimeoutMs,
      batchSize: deps.batchSize,
    },
    {
      progress: (p) => emit({ type: 'progress', ...p }),
      subscription: (s) => {
        const marked = markVerification(s, previous);
        subs.set(s.id, marked);
        emit({ type: 'subscription', subscription: marked });
      },
      started: async () => {
        const taken = await deps.quota.take(m.email);
        if (!taken.ok) {
          refusedUntil = taken.resets_at;
          return false;
        }
        emit({ type: 'quota', email: m.email, scans_left: taken.scans_left, resets_at: taken.resets_at });
        return true;
      },
    },
  );
  if (!result.ok) {
    deps.logger.info({ code: result.code }, 'scan ended with an error');
    emit(
      result.code === 'REFUSED'
        ? quotaExceeded(refusedUntil)
        : { type: 'error', code: result.code, message: result.message },
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
    verification: summarizeVerification(previous, subs),
  });
  return { email: m.email, creds, imap, smtp, subscriptions: subs, uids: result.uids };
}
