/**
 * The languages the template writer frames guides in, and how a requested locale is
 * matched to one of them. Only the framing (explanation) is translated; steps and traps
 * stay in the catalog's language, because a template cannot translate free text.
 * Each language supplies whole sentences (not fragments glued together) so its grammar
 * stays natural; the writer decides which sentences a guide gets.
 */
import type { z } from 'zod';
import type { Tier } from '../../catalog/friction/compute.ts';
import type { Axis, BillingRoute, RetentionLevel } from '../../catalog/vocabulary.ts';
import { de } from './locales/de.ts';
import { en } from './locales/en.ts';
import { es } from './locales/es.ts';
import { fr } from './locales/fr.ts';

export const FRAMING_LOCALES = ['en', 'de', 'fr', 'es'] as const;
export type FramingLocale = (typeof FRAMING_LOCALES)[number];

type Retention = z.infer<typeof RetentionLevel>;
type Route = z.infer<typeof BillingRoute>;
export type Confirmation = 'email' | 'on_screen' | 'letter' | 'none';
export type Access = 'until_period_end' | 'immediate';
/** ISO 8601 duration designators, minutes as MIN to tell them from months */
export type DurationUnit = 'Y' | 'M' | 'W' | 'D' | 'H' | 'MIN';

export interface Framing {
  /** locale for Intl number and list formatting */
  intl: string;
  /** final touch on the whole explanation (French spacing before punctuation) */
  polish?: (text: string) => string;
  tier: Record<Tier, string>;
  axis: Record<Axis, string>;
  route(route: Route, name: string): string;
  /** [singular, plural] */
  units: Record<DurationUnit, [string, string]>;
  neutral: {
    /** `low` = effortless/easy, where "the main hurdle" would overstate it */
    rating(name: string, tier: string, score: string, axis: string | null, low: boolean): string;
    billers(list: string): string;
    commitment(duration: string): string;
    notice(duration: string): string;
    cutoff(duration: string): string;
    retention: Record<Retention, string>;
    pause: string;
    noExit: string;
    confirmation: Record<Confirmation, string>;
    access: Record<Access, string>;
    /** n ≥ 1 */
    traps(n: number, serious: number): string;
  };
  reassuring: {
    open(name: string, tier: Tier, label: string, score: string): string;
    focus(axis: string): string;
    expect: string;
    billers(list: string): string;
    retention: Record<Retention, string>;
    pause: string;
    noExit: string;
    access: Record<Access, string>;
    traps(n: number): string;
    keep: Record<Confirmation | 'unknown', string>;
  };
  /** one sentence at most */
  terse(tier: string, score: string, axis: string | null, checkBiller: boolean, noExit: boolean): string;
}

export const FRAMINGS: Record<FramingLocale, Framing> = { en, de, fr, es };

/**
 * The framing locale for a requested tag: its language if we have it (de-AT → de),
 * otherwise the fallback's language, otherwise en (pt-BR → en).
 */
export function negotiateLocale(requested: string | undefined, fallback = 'en'): FramingLocale {
  for (const tag of [requested, fallback]) {
    const lang = tag?.split('-')[0]?.toLowerCase();
    if (lang && (FRAMING_LOCALES as readonly string[]).includes(lang)) return lang as FramingLocale;
  }
  return 'en';
}

/** "P1Y6M" → "1 year and 6 months" in the framing's language; null if unparsable */
export function formatDuration(iso: string, f: Framing): string | null {
  const m = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/.exec(iso);
  if (!m) return null;
  const units: DurationUnit[] = ['Y', 'M', 'W', 'D', 'H', 'MIN'];
  const parts = units.flatMap((u, i) => {
    const n = Number(m[i + 1] ?? 0);
    if (!n) return [];
    const [one, many] = f.units[u];
    return [`${formatter(f, 'integer').format(n)} ${n === 1 ? one : many}`];
  });
  return parts.length ? formatter(f, 'and').format(parts) : null;
}

export const formatScore = (n: number, f: Framing) => formatter(f, 'score').format(n);

export const formatOr = (items: string[], f: Framing) => formatter(f, 'or').format(items);

// Building an Intl formatter costs far more than using one (it was most of a template guide's
// time): one of each per language, made on first use.
const FORMATTERS = {
  integer: (intl: string) => new Intl.NumberFormat(intl),
  score: (intl: string) => new Intl.NumberFormat(intl, { maximumFractionDigits: 1 }),
  and: (intl: string) => new Intl.ListFormat(intl, { type: 'conjunction' }),
  or: (intl: string) => new Intl.ListFormat(intl, { type: 'disjunction' }),
};
type FormatterKind = keyof typeof FORMATTERS;
const formatters = new Map<string, unknown>();
function formatter<K extends FormatterKind>(f: Framing, kind: K): ReturnType<(typeof FORMATTERS)[K]> {
  const key = `${kind}|${f.intl}`;
  let made = formatters.get(key);
  if (made === undefined) {
    made = FORMATTERS[kind](f.intl);
    formatters.set(key, made);
  }
  return made as ReturnType<(typeof FORMATTERS)[K]>;
}
