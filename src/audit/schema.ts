/**
 * The audit's one shape (docs/audit.md), the same over /ws, MCP and on the page: frequency from
 * the scan, spend from the receipts. Amounts are major units rounded to cents, currencies ISO
 * 4217 codes, periods ISO 8601 durations, dates ISO 8601 date-times; totals are per currency,
 * never converted.
 */
import { z } from 'zod';

const Iso = z.string();
const Count = z.int().nonnegative();
const Amount = z.number().nonnegative();
const Currency = z.string().regex(/^[A-Z]{3}$/);

export const AuditSender = z.strictObject({ name: z.string(), address: z.string(), domain: z.string() });

export const AuditFrequency = z.strictObject({
  /** list mail per month, all subscriptions together */
  per_month: Amount,
  /** share of the subscriptions none of whose mail was read (0–1) */
  never_read_share: z.number().min(0).max(1),
  /** minutes a month spent on the list mail that is read (10 s a read message; docs/audit.md) */
  reading_minutes_per_month: Amount,
  /** the subscriptions that mail most, most first (at most 10) */
  top: z.array(
    z.strictObject({ id: z.string(), sender: AuditSender, per_month: Amount, read_rate: z.number().min(0).max(1) }),
  ),
});

export const AuditService = z.strictObject({
  slug: z.string(),
  name: z.string(),
  /** the latest amount billed; null when its receipts gave none that is clearly the charge */
  amount: Amount.nullable(),
  currency: Currency.nullable(),
  /** ISO 8601 duration (P1M, P1Y, P1W, P4W, P3M…), null when unknown */
  billing_period: Iso.nullable(),
  /** `amount` per month (a year / 12, a week × 52 / 12); null without amount or period */
  monthly_amount: Amount.nullable(),
  /** when the latest receipt or invoice arrived; null when only renewal notices were found */
  last_charged: Iso.nullable(),
  /** billing messages found: receipts, invoices, renewal notices */
  receipts: Count,
  tier: z.string(),
  /** the friction score (0–10, one decimal) `tier` derives from; shown with it as one badge (protocol 2.4) */
  difficulty: z.number().min(0).max(10),
  guide_url: z.string(),
});

export const Audit = z.strictObject({
  /** the mail the audit covers: from the scan's `since` (or its oldest message) to the scan's end */
  period: z.strictObject({ from: Iso.nullable(), to: Iso }),
  /** messages the scan read */
  messages: Count,
  /** subscriptions (list senders) the scan found */
  senders: Count,
  frequency: AuditFrequency,
  spend: z.strictObject({
    services: z.array(AuditService),
    monthly_total: z.array(z.strictObject({ currency: Currency, amount: Amount })),
  }),
});
export type Audit = z.infer<typeof Audit>;
export type AuditService = z.infer<typeof AuditService>;
export type AuditFrequency = z.infer<typeof AuditFrequency>;
