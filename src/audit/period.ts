/**
 * Billing periods as ISO 8601 durations (P1M, P1Y, P1W, P4W, P3M…): read from words ("per
 * month", "/yr", "annual", "wöchentlich"), from a stated billing period ("Jan 5 – Feb 4, 2026"),
 * or from the spacing of a service's charges; and a charge normalised to a month.
 */
import { u } from './word-edge.ts';

const PHRASES: readonly (readonly [RegExp, string])[] = [
  [u(/\b(?:every|per|each)\s+(?:4|four)\s+weeks?\b|\b4[- ]weekly\b|\b(?:4|four)[- ]week\b/i), 'P4W'],
  [u(/\b(?:every|per|each)\s+(?:2|two)\s+weeks?\b|\bbi-?weekly\b|\bfortnight(?:ly)?\b|\b(?:2|two)[- ]week\b/i), 'P2W'],
  [
    u(
      /\b(?:every|per|each)\s+(?:3|three)\s+months?\b|\bquarterly\b|\bper quarter\b|\b(?:3|three)[- ]month\b|\bvierteljährlich\b|\btrimestriel\b|\btrimestral\b/i,
    ),
    'P3M',
  ],
  [
    u(
      /\b(?:every|per|each)\s+(?:6|six)\s+months?\b|\bsemi-?annual(?:ly)?\b|\bhalf-?yearly\b|\b(?:6|six)[- ]month\b|\bhalbjährlich\b|\bsemestriel\b|\bsemestral\b/i,
    ),
    'P6M',
  ],
  [
    u(
      /\/\s?(?:yr|year|an|jahr|año)\b|\b(?:per|a|an|each|every)\s+year\b|\bannual(?:ly)?\b|\byearly\b|\b(?:12|twelve)[- ]months?\b|\bjährlich\b|\bpro jahr\b|\bim jahr\b|\bannuel(?:le)?\b|\bpar an\b|\banual\b|\bal año\b|\bannuale\b|\ball'anno\b/i,
    ),
    'P1Y',
  ],
  [
    u(
      /\/\s?(?:mo|mth|month|mois|monat|mes)\b|\b(?:per|a|each|every)\s+month\b|\bmonthly\b|\bmonth-to-month\b|\b(?:1|one)[- ]month\b|\bmonatlich\b|\bpro monat\b|\bim monat\b|\bmensuel(?:le)?\b|\bpar mois\b|\bmensual\b|\bal mes\b|\bmensile\b|\bal mese\b/i,
    ),
    'P1M',
  ],
  [
    u(
      /\/\s?(?:wk|week|semaine|woche|semana)\b|\b(?:per|a|each|every)\s+week\b|\bweekly\b|\bwöchentlich\b|\bpro woche\b|\bhebdomadaire\b|\bpar semaine\b|\bsemanal\b|\ba la semana\b/i,
    ),
    'P1W',
  ],
];

/** The period words in `text` name, in the order they appear (each period once). */
export function periodsIn(text: string): { period: string; index: number }[] {
  const found: { period: string; index: number }[] = [];
  const taken: [number, number][] = [];
  for (const [re, period] of PHRASES) {
    const m = re.exec(text);
    // "every 4 weeks" must not also count as "weeks"; "12-month" not also as "month"
    if (!m || taken.some(([s, e]) => m.index < e && m.index + m[0].length > s)) continue;
    taken.push([m.index, m.index + m[0].length]);
    found.push({ period, index: m.index });
  }
  return found.sort((a, b) => a.index - b.index);
}

/** The one period named in `text`, or null when it names none or several. */
export function onePeriod(text: string): string | null {
  const p = periodsIn(text);
  return p.length === 1 ? p[0]!.period : null;
}

const DAY_MS = 86_400_000;

/** A span of days → the billing period it is, allowing for month lengths and inclusive ends. */
export function periodOfDays(days: number): string | null {
  if (days >= 6 && days <= 8) return 'P1W';
  if (days >= 13 && days <= 15) return 'P2W';
  if (days >= 27 && days <= 32) return 'P1M';
  if (days >= 85 && days <= 95) return 'P3M';
  if (days >= 175 && days <= 190) return 'P6M';
  if (days >= 355 && days <= 373) return 'P1Y';
  return null;
}

/**
 * The period in which charges come, from their dates: the median gap, when at least half the
 * gaps agree with it. Needs two charges or more.
 */
export function periodFromCadence(dates: Date[]): string | null {
  const t = dates.map((d) => d.getTime()).sort((a, b) => a - b);
  const gaps: number[] = [];
  for (let i = 1; i < t.length; i++) gaps.push((t[i]! - t[i - 1]!) / DAY_MS);
  if (gaps.length === 0) return null;
  const sorted = [...gaps].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const period = periodOfDays(Math.round(median));
  if (!period) return null;
  const agree = gaps.filter((g) => periodOfDays(Math.round(g)) === period).length;
  return agree * 2 >= gaps.length ? period : null;
}

const MONTHS: Record<string, number> = {
  jan: 0,
  feb: 1,
  mar: 2,
  apr: 3,
  may: 4,
  jun: 5,
  jul: 6,
  aug: 7,
  sep: 8,
  oct: 9,
  nov: 10,
  dec: 11,
  janv: 0,
  févr: 1,
  fevr: 1,
  mars: 2,
  avr: 3,
  mai: 4,
  juin: 5,
  juil: 6,
  août: 7,
  aout: 7,
  sept: 8,
  déc: 11,
  mär: 2,
  märz: 2,
  okt: 9,
  dez: 11,
  ene: 0,
  abr: 3,
  ago: 7,
  dic: 11,
};
const MONTH_WORD = String.raw`[A-Za-zÀ-ÿ]{3,9}\.?`;
const YEAR = String.raw`(?:19|20)\d{2}`;
const DATE = String.raw`(?:${YEAR}-\d{1,2}-\d{1,2}|\d{1,2}\.?\s${MONTH_WORD}\s${YEAR}|${MONTH_WORD}\s\d{1,2}(?:st|nd|rd|th)?,?\s${YEAR}|\d{1,2}[./]\d{1,2}[./]${YEAR}|${MONTH_WORD}\s\d{1,2}(?:st|nd|rd|th)?|\d{1,2}\.?\s${MONTH_WORD})`;
const RANGE = new RegExp(String.raw`(${DATE})\s?(?:[-–—]|to|bis|au|al|through|until)\s?(${DATE})`, 'giu');

/**
 * A billing period stated as a date range ("Billing period: Jan 5 – Feb 4, 2026", "01.03.2026 –
 * 31.03.2026", "2026-01-05 to 2026-02-04"), as a duration; null when none reads as one.
 * A numeric date is read day-first or month-first, whichever gives a span that is a period.
 */
export function periodFromRange(text: string): string | null {
  for (const m of text.matchAll(RANGE)) {
    const year = m[2]!.match(new RegExp(YEAR))?.[0] ?? m[1]!.match(new RegExp(YEAR))?.[0];
    if (!year) continue;
    for (const order of ['dmy', 'mdy'] as const) {
      const a = readDate(m[1]!, Number(year), order);
      const b = readDate(m[2]!, Number(year), order);
      if (a === null || b === null) continue;
      let days = (b - a) / DAY_MS;
      if (days < 0 && !/\d{4}/.test(m[1]!)) days += 365; // "Dec 20 – Jan 19, 2026": the first year is the one before
      const p = periodOfDays(Math.round(days));
      if (p) return p;
    }
  }
  return null;
}

function readDate(s: string, fallbackYear: number, order: 'dmy' | 'mdy'): number | null {
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(s);
  if (iso) return utc(Number(iso[1]), Number(iso[2]) - 1, Number(iso[3]));
  const numeric = /^(\d{1,2})[./](\d{1,2})[./](\d{4})$/.exec(s);
  if (numeric) {
    const [x, y] = [Number(numeric[1]), Number(numeric[2])];
    return order === 'dmy' ? utc(Number(numeric[3]), y - 1, x) : utc(Number(numeric[3]), x - 1, y);
  }
  const words = s.replace(/,/g, ' ').split(/\s+/).filter(Boolean);
  let day: number | null = null;
  let month: number | null = null;
  let year = fallbackYear;
  for (const w of words) {
    const n = /^(\d{1,4})(?:st|nd|rd|th|\.)?$/.exec(w);
    if (n) {
      const v = Number(n[1]);
      if (v > 31) year = v;
      else day = v;
      continue;
    }
    const key = w.toLowerCase().replace(/\.$/, '');
    const hit = MONTHS[key] ?? MONTHS[key.slice(0, 3)];
    if (hit !== undefined) month = hit;
  }
  return day === null || month === null ? null : utc(year, month, day);
}

function utc(y: number, m: number, d: number): number | null {
  if (m < 0 || m > 11 || d < 1 || d > 31) return null;
  const t = Date.UTC(y, m, d);
  return new Date(t).getUTCDate() === d ? t : null;
}

/**
 * A charge per period → per month, in minor units: a year /12, a week ×52/12, n months /n,
 * n weeks ×52/(12n), n days ×365/(12n). Null for a duration it cannot read.
 */
export function monthlyMinor(minor: number, period: string): number | null {
  const m = /^P(\d+)([YMWD])$/.exec(period);
  if (!m) return null;
  const n = Number(m[1]);
  if (n === 0) return null;
  const perMonth = { Y: 1 / (12 * n), M: 1 / n, W: 52 / (12 * n), D: 365 / (12 * n) }[m[2] as 'Y' | 'M' | 'W' | 'D'];
  return minor * perMonth;
}
