/**
 * The spend half of the audit: each service's billing messages (read by receipt.ts) → what it
 * costs, and the monthly totals per currency. Pure.
 *
 * Per service: the amount and currency of the newest message that states one; its period, else
 * the period another message with that same charge states, else the spacing of the charges
 * (period.ts), else the catalog's when every plan of the service bills in that one period;
 * `last_charged` is the newest receipt or invoice (not a renewal notice). A service whose
 * cancellation confirmation is newer than all its billing messages is left out. Totals add the
 * monthly amounts of one currency; nothing is converted.
 */
import { toMajor } from './currency.ts';
import { monthlyMinor, periodFromCadence } from './period.ts';
import type { ReceiptReading } from './receipt.ts';
import type { AuditService } from './schema.ts';

export interface ServiceFacts {
  slug: string;
  name: string;
  tier: string;
  /** the friction score the tier derives from */
  difficulty: number;
  guide_url: string;
  /** the billing periods of the catalog record's plans */
  plan_periods: readonly string[];
}

export interface DatedReading {
  date: Date;
  reading: Extract<ReceiptReading, { kind: 'charge' | 'upcoming' }>;
}

export function serviceSpend(
  facts: ServiceFacts,
  found: readonly DatedReading[],
  cancelled: Date | null = null,
): AuditService | null {
  if (found.length === 0) return null;
  const newest = [...found].sort((a, b) => b.date.getTime() - a.date.getTime());
  // Cancelled after its last charge or notice: no longer something the person pays for.
  if (cancelled && cancelled > newest[0]!.date) return null;
  const priced = newest.find((f) => f.reading.amount !== null);
  const charges = newest.filter((f) => f.reading.kind === 'charge');
  const base = {
    slug: facts.slug,
    name: facts.name,
    last_charged: charges[0]?.date.toISOString() ?? null,
    receipts: found.length,
    tier: facts.tier,
    difficulty: facts.difficulty,
    guide_url: facts.guide_url,
  };
  if (!priced) return { ...base, amount: null, currency: null, billing_period: null, monthly_amount: null };
  const { minor, currency } = priced.reading.amount!;
  const same = newest.filter((f) => f.reading.amount?.minor === minor && f.reading.amount.currency === currency);
  const catalogPeriods = new Set(facts.plan_periods);
  const period =
    priced.reading.period ??
    same.find((f) => f.reading.period !== null)?.reading.period ??
    periodFromCadence(uniqueDays(charges.map((c) => c.date))) ??
    (catalogPeriods.size === 1 ? [...catalogPeriods][0]! : null);
  const monthly = period === null ? null : monthlyMinor(minor, period);
  return {
    ...base,
    amount: toMajor(minor, currency),
    currency,
    billing_period: period,
    monthly_amount: monthly === null ? null : toMajor(monthly, currency),
  };
}

/** Two messages of one day (a receipt and its invoice) are one charge for the spacing. */
function uniqueDays(dates: Date[]): Date[] {
  const days = new Map<string, Date>();
  for (const d of dates) days.set(d.toISOString().slice(0, 10), d);
  return [...days.values()];
}

/** Monthly amounts added per currency, in currency order. */
export function monthlyTotals(services: readonly AuditService[]): { currency: string; amount: number }[] {
  const cents = new Map<string, number>();
  for (const s of services) {
    if (s.monthly_amount === null || s.currency === null) continue;
    cents.set(s.currency, (cents.get(s.currency) ?? 0) + Math.round(s.monthly_amount * 100));
  }
  return [...cents.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, c]) => ({ currency, amount: c / 100 }));
}

/** Services by currency, then monthly amount (largest first, unknown last), then name. */
export function sortServices(services: AuditService[]): AuditService[] {
  return services.sort(
    (a, b) =>
      Number(a.currency === null) - Number(b.currency === null) ||
      (a.currency ?? '').localeCompare(b.currency ?? '') ||
      (b.monthly_amount ?? -1) - (a.monthly_amount ?? -1) ||
      a.name.localeCompare(b.name),
  );
}
