/**
 * The audit of one scan: frequency from the scan's subscriptions, spend from the receipts
 * (collect.ts → receipt.ts → spend.ts), in the one shape of schema.ts. Whoever holds a scan
 * (a /ws session, an MCP hand-off) calls this with what it holds; nothing is kept here.
 */
import type { Subscription } from '../mailbox/types.ts';
import type { OutboundGuard } from '../outbound/guard.ts';
import { type CollectLimits, collectReceipts, type MailboxSource } from './collect.ts';
import { frequencyOf } from './frequency.ts';
import type { Audit } from './schema.ts';
import type { AuditCatalog } from './senders.ts';
import { monthlyTotals, serviceSpend, sortServices } from './spend.ts';

export interface ScannedMailbox extends MailboxSource {
  subscriptions: readonly Subscription[];
  /** messages the scan read */
  scanned: number;
}

export type AuditOutcome =
  | { ok: true; audit: Audit; cancelled: boolean }
  | {
      ok: false;
      code: 'AUTH_FAILED' | 'CONNECT_FAILED' | 'HOST_NOT_ALLOWED' | 'TLS_FAILED' | 'TIMEOUT' | 'AUDIT_FAILED';
      message: string;
    };

export async function runAudit(
  scan: ScannedMailbox,
  deps: { senders: AuditCatalog; guard: OutboundGuard; limits?: Partial<CollectLimits> },
  opts: { signal?: AbortSignal; progress(done: number, total: number): void },
): Promise<AuditOutcome> {
  const collected = await collectReceipts(scan, deps.senders, deps.guard, {
    limits: deps.limits,
    signal: opts.signal,
    progress: opts.progress,
  });
  if (!collected.ok) return collected;
  const services = sortServices(
    [...collected.readings.values()]
      .map(({ service, found, cancelled }) => serviceSpend(service, found, cancelled))
      .filter((s) => s !== null),
  );
  return {
    ok: true,
    cancelled: collected.cancelled,
    audit: {
      period: { from: periodStart(scan, collected.oldest), to: scan.until.toISOString() },
      messages: scan.scanned,
      senders: scan.subscriptions.length,
      frequency: frequencyOf(scan.subscriptions),
      spend: { services, monthly_total: monthlyTotals(services) },
    },
  };
}

/** The scan's `since`; without one, the oldest message the audit saw (list mail or a receipt). */
function periodStart(scan: ScannedMailbox, oldestReceipt: Date | null): string | null {
  if (scan.since) return scan.since.toISOString();
  let oldest = oldestReceipt?.getTime() ?? Number.POSITIVE_INFINITY;
  for (const s of scan.subscriptions) if (s.first_seen) oldest = Math.min(oldest, Date.parse(s.first_seen));
  return Number.isFinite(oldest) ? new Date(oldest).toISOString() : null;
}
