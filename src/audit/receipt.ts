/**
 * One message from a service's sender domain → whether it bills for that service, and for how
 * much, in which currency, per which period. Pure; the text comes from strangers: nothing here
 * throws, and an amount that is not clearly the charge is null, never a guess.
 *
 * The rules (docs/audit.md, "How receipts are read"):
 * 1. A failed payment, a refund or a cancellation (by the subject) bills nothing; a cancellation
 *    of the service's subscription is reported as such (spend.ts leaves the service out when it
 *    is newer than every charge).
 * 2. A billing message talks about money (BILLING), something recurring (RECURRING, a period,
 *    or one of the catalog's plan names, outside offers) and names the service (its name or an
 *    alias); so a shop order from a domain that also sells a membership does not count as the
 *    membership.
 * 3. Every amount is judged by the clause before it: an offer ("save $5", "from $6.99",
 *    "20% off", a struck-through price) or a part of a total (subtotal, tax, discount, a
 *    conversion) is never the charge; a negative amount is a credit. What remains is ranked by
 *    its label: a total or "charged/paid" line, then a renewal's "will be charged", then a
 *    price, then an amount with a period beside it; an amount without a label counts only when
 *    it is the only one.
 * 4. The period comes from words beside the amount, else a stated billing date range, else the
 *    one period the message names outside offers.
 */
import { findMoney, type Money } from './money.ts';
import { onePeriod, periodFromRange, periodsIn } from './period.ts';
import {
  BILLING,
  CANCELLED,
  FAILED,
  INCLUSIVE,
  PART_LABEL,
  PAST_SUBJECT,
  PAST_TEXT,
  PRICE_LABEL,
  PROMO_AFTER,
  PROMO_BEFORE,
  PROMO_CLAUSE,
  RECURRING,
  REFUND,
  TOTAL_LABEL,
  UPCOMING,
  UPCOMING_SUBJECT,
} from './receipt-words.ts';

/** Longest text read from one message (a receipt's charge is near its top). */
export const MAX_TEXT = 100_000;
/** Amounts weighed per message at most (a receipt has a handful; a price list is not a receipt). */
const MAX_AMOUNTS = 500;

export interface ServiceNames {
  name: string;
  aliases: readonly string[];
  /** the catalog's plan names ("Premium Family"): naming one says the charge recurs */
  plans?: readonly string[];
}

export type NotBilling = 'not_billing' | 'not_recurring' | 'other_service' | 'payment_failed' | 'refund' | 'cancelled';

export type ReceiptReading =
  | {
      /** charge: money was taken (receipt, invoice); upcoming: it will be (renewal notice) */
      kind: 'charge' | 'upcoming';
      amount: { minor: number; currency: string } | null;
      /** ISO 8601 duration, or null when the message does not say */
      period: string | null;
    }
  | { kind: null; why: NotBilling };

type Label = 'total' | 'upcoming' | 'price' | 'period' | 'none';
const RANK: Record<Label, number> = { total: 5, upcoming: 4, price: 3, period: 2, none: 1 };

interface Candidate {
  money: Money;
  label: Label;
  line: number;
}

export function readReceipt(input: { subject: string | null; text: string; service: ServiceNames }): ReceiptReading {
  const subject = (input.subject ?? '').toLowerCase().slice(0, 1000);
  const text = input.text.slice(0, MAX_TEXT);
  const lower = text.toLowerCase();
  if (FAILED.test(subject)) return { kind: null, why: 'payment_failed' };
  if (REFUND.test(subject)) return { kind: null, why: 'refund' };
  // A cancellation of this service's subscription (not of a shop order from the same domain).
  if (CANCELLED.test(subject)) {
    const about = names(input.service).some((n) => mentions(`${subject}\n${lower}`, n));
    return about && (RECURRING.test(subject) || RECURRING.test(lower))
      ? { kind: null, why: 'cancelled' }
      : { kind: null, why: 'not_billing' };
  }
  if (!BILLING.test(subject) && !BILLING.test(lower)) return { kind: null, why: 'not_billing' };
  if (!names(input.service).some((n) => mentions(`${subject}\n${lower}`, n)))
    return { kind: null, why: 'other_service' };

  const lines = text.split('\n');
  const lowerLines = lower.split('\n');
  const offerLines = new Set<number>();
  const candidates: Candidate[] = [];
  let weighed = 0;
  for (let i = 0; i < lines.length && weighed < MAX_AMOUNTS; i++) {
    for (const money of findMoney(lines[i]!, MAX_AMOUNTS - weighed)) {
      weighed++;
      const judged = judge(lowerLines, i, money);
      if (judged === 'offer') offerLines.add(i);
      // a zero total is a trial's first day, not what the service costs
      else if (judged !== 'part' && money.minor > 0) candidates.push({ money, label: judged, line: i });
    }
  }
  // The text without offers: where recurrence and periods are looked for.
  const plainLines = lowerLines.map((l, i) => (offerLines.has(i) || PROMO_CLAUSE.test(l) ? '' : l));
  const plain = plainLines.join('\n');
  const recurs =
    RECURRING.test(subject) ||
    RECURRING.test(plain) ||
    periodsIn(plain).length > 0 ||
    planNames(input.service).some((p) => mentions(`${subject}\n${plain}`, p));
  if (!recurs) return { kind: null, why: 'not_recurring' };

  const chosen = choose(candidates);
  const kind = kindOf(subject, plain, chosen?.label ?? null);
  const period = periodOf(lowerLines, plainLines, chosen);
  if (!chosen) return { kind, amount: null, period };
  return { kind, amount: { minor: chosen.money.minor, currency: chosen.money.currency }, period };
}

/** The service's names as matched in text: lower-case words ("disney+" → "disney plus"). */
function names(s: ServiceNames): string[] {
  const all = [s.name.replace(/\(.*?\)/g, ''), ...s.aliases].map(normalise).filter((n) => n.length >= 3);
  return [...new Set(all)];
}

/** Plan names as matched in text, those of two words or more ("Premium Family", not "Standard"). */
function planNames(s: ServiceNames): string[] {
  return (s.plans ?? []).map((p) => normalise(p.replace(/\(.*?\)/g, ''))).filter((p) => p.includes(' '));
}

function normalise(s: string): string {
  return s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/\+/g, ' plus ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function mentions(text: string, name: string): boolean {
  return ` ${normalise(text)} `.includes(` ${name} `);
}

/** What an amount is, from the clause before it and the words right after it. */
function judge(lines: string[], i: number, m: Money): Label | 'offer' | 'part' {
  const line = lines[i]!;
  let before = line.slice(Math.max(0, m.start - 200), m.start).replace(INCLUSIVE, ' ');
  // A table row split over two lines ("Total\n$12.99"): the label is the line above.
  if (!/\p{L}/u.test(before) && i > 0) before = `${lines[i - 1]!.slice(-200).replace(INCLUSIVE, ' ')} ${before}`;
  const after = line.slice(m.end, m.end + 40);
  // The clause: from the last sentence end before the amount (table cells stay in: "Total | $9.99").
  const clause = (before.split(/[.!?;]\s|\s[–—]\s/).at(-1) ?? before).slice(-80);
  if (PROMO_BEFORE.test(clause) || PROMO_AFTER.test(after) || PROMO_CLAUSE.test(clause)) return 'offer';
  if (m.negative) return 'part';
  const last = lastLabel(clause);
  if (last === 'part') return 'part';
  if (last) return last;
  if (UPCOMING.test(clause)) return 'upcoming';
  if (periodsIn(after.slice(0, 16)).some((p) => p.index <= 2)) return 'period';
  return 'none';
}

/** The label nearest before the amount: the last of the labels in its clause. */
function lastLabel(clause: string): Label | 'part' | null {
  let best: { at: number; label: Label | 'part' } | null = null;
  const take = (re: RegExp, label: Label | 'part') => {
    for (const m of clause.matchAll(re)) if (!best || m.index >= best.at) best = { at: m.index, label };
  };
  take(PRICE_LABEL, 'price');
  take(TOTAL_LABEL, 'total');
  take(PART_LABEL, 'part');
  const found = best as { at: number; label: Label | 'part' } | null;
  if (found?.label === 'total' && UPCOMING.test(clause)) return 'upcoming';
  return found?.label ?? null;
}

/** The best-ranked amount; among equals the largest (a grand total over its parts). */
function choose(all: Candidate[]): Candidate | null {
  if (all.length === 0) return null;
  const top = Math.max(...all.map((c) => RANK[c.label]));
  const best = all.filter((c) => RANK[c.label] === top);
  if (top === RANK.none) {
    // An amount without any label is the charge only when nothing else competes with it.
    const distinct = new Set(best.map((c) => `${c.money.currency}${c.money.minor}`));
    if (distinct.size !== 1) return null;
  }
  const currency = best[0]!.money.currency;
  return best.filter((c) => c.money.currency === currency).reduce((a, b) => (b.money.minor > a.money.minor ? b : a));
}

function kindOf(subject: string, plain: string, label: Label | null): 'charge' | 'upcoming' {
  if (PAST_SUBJECT.test(subject)) return 'charge';
  if (UPCOMING_SUBJECT.test(subject)) return 'upcoming';
  if (label === 'upcoming') return 'upcoming';
  if (PAST_TEXT.test(plain)) return 'charge';
  if (UPCOMING.test(plain)) return 'upcoming';
  return 'charge';
}

/**
 * The period beside the amount ("$9.99/month"), else a stated billing range, else the one period
 * named in the lines around the amount, else the one named in the whole message (offers left out).
 */
function periodOf(lines: string[], plainLines: string[], chosen: Candidate | null): string | null {
  const plain = plainLines.join('\n');
  if (chosen) {
    const after = lines[chosen.line]!.slice(chosen.money.end, chosen.money.end + 40);
    const near = periodsIn(after).find((p) => p.index <= 12);
    if (near) return near.period;
  }
  const range = periodFromRange(plain);
  if (range) return range;
  if (chosen) {
    const around = onePeriod(plainLines.slice(Math.max(0, chosen.line - 2), chosen.line + 3).join('\n'));
    if (around) return around;
  }
  return onePeriod(plain);
}
