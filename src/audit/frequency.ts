/**
 * The frequency half of the audit, from a scan's subscriptions (src/mailbox/grouping.ts gives
 * each its mail per month and read rate). Pure.
 */
import type { Subscription } from '../mailbox/types.ts';
import type { AuditFrequency } from './schema.ts';

/** Seconds a read message takes: Litmus's 2021 average reading time of a brand email (docs/audit.md). */
export const READ_SECONDS = 10;
export const TOP_SENDERS = 10;

const round2 = (n: number) => Math.round(n * 100) / 100;

export function frequencyOf(
  subs: readonly Pick<Subscription, 'id' | 'sender' | 'per_month' | 'read_rate' | 'count'>[],
): AuditFrequency {
  let perMonth = 0;
  let readPerMonth = 0;
  let neverRead = 0;
  for (const s of subs) {
    perMonth += s.per_month;
    readPerMonth += s.per_month * s.read_rate;
    if (s.read_rate === 0) neverRead++;
  }
  const top = [...subs]
    .sort((a, b) => b.per_month - a.per_month || b.count - a.count || a.sender.address.localeCompare(b.sender.address))
    .slice(0, TOP_SENDERS)
    .map((s) => ({
      id: s.id,
      sender: { name: s.sender.name, address: s.sender.address, domain: s.sender.domain },
      per_month: s.per_month,
      read_rate: s.read_rate,
    }));
  return {
    per_month: round2(perMonth),
    never_read_share: subs.length === 0 ? 0 : round2(neverRead / subs.length),
    reading_minutes_per_month: round2((readPerMonth * READ_SECONDS) / 60),
    top,
  };
}
