/**
 * One `audit` for a session: the frequency and cost audit (src/audit/) of the session's last
 * scan, with the sign-in that scan still holds (an OAuth account gives a fresh token). Reports
 * `progress` (phase `audit`) at once and at least every 400 ms — the search of a large folder
 * says nothing for a while — then the `audit`, or an `error` with the failure's code.
 */
import type { CollectLimits } from '../audit/collect.ts';
import type { AuditCatalog } from '../audit/senders.ts';
import { imapCredentials } from '../oauth/mail.ts';
import type { OutboundGuard } from '../outbound/guard.ts';
import type { ProgressMessage } from './protocol.ts';
import type { Emit, LastScan, ScanDeps } from './scan-command.ts';

export interface AuditDeps {
  guard: OutboundGuard;
  logger: ScanDeps['logger'];
  /** the catalog's sender domains, for the audit's receipts */
  senders: AuditCatalog;
  auditLimits?: Partial<CollectLimits>;
}

export async function auditForSession(scanned: LastScan, deps: AuditDeps, signal: AbortSignal, emit: Emit) {
  let latest: ProgressMessage = { type: 'progress', phase: 'audit', done: 0, total: 0 };
  emit(latest);
  const ticker = setInterval(() => emit(latest), 400);
  try {
    // The audit's modules (receipt reading, ~50 ms of Unicode expressions to compile) load with
    // the first audit, not at start (bench/api, start to ready).
    const { runAudit } = await import('../audit/run-audit.ts');
    const outcome = await runAudit(
      {
        imap: scanned.imap,
        creds: scanned.account ? () => imapCredentials(scanned.account!) : scanned.creds,
        mailboxes: scanned.mailboxes,
        since: scanned.since,
        until: scanned.finishedAt,
        subscriptions: [...scanned.subscriptions.values()],
        scanned: scanned.scanned,
      },
      { senders: deps.senders, guard: deps.guard, limits: deps.auditLimits },
      {
        signal,
        progress: (done, total) => {
          latest = { type: 'progress', phase: 'audit', done, total };
          emit(latest);
        },
      },
    );
    if (!outcome.ok) {
      deps.logger.info({ code: outcome.code }, 'audit ended with an error');
      emit({ type: 'error', code: outcome.code, message: outcome.message });
      return;
    }
    const { audit, cancelled } = outcome;
    deps.logger.info({ services: audit.spend.services.length, cancelled }, 'audit done');
    emit({ type: 'audit', audit, cancelled });
  } finally {
    clearInterval(ticker);
  }
}
