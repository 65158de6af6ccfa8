/**
 * Amounts of money in the text of a message: "$1,234.56", "1.234,56 €", "12,99 €", "EUR 12.99",
 * "£4.99", "1 234,56 zł", "CHF 1'234.50", "-$5.00", "($5.00)". Pure and linear; the text comes
 * from strangers, so nothing here throws and anything unclear is dropped, never guessed.
 *
 * A number is read by its separators, not by the currency's country (a euro price may be written
 * "12.99" or "12,99"): the last separator is the decimal one when one or two digits follow it;
 * with three digits it groups thousands ("1,234" and "1.234" are both 1234). Every group after
 * the first must then hold exactly three digits and use one separator, different from the
 * decimal one; anything else ("1.2.3", "12,3456") is not an amount.
 */
import { AMBIGUOUS, CURRENCY_DIGITS, isCurrencyCode, SYMBOLS } from './currency.ts';

export interface Money {
  /** where the mention starts and ends in the text (sign and currency included) */
  start: number;
  end: number;
  /** the amount in minor units (cents), never negative */
  minor: number;
  /** ISO 4217 code */
  currency: string;
  /** written with a minus sign or in accounting parentheses: a discount, credit or refund line */
  negative: boolean;
}

const MAX_INTEGER_DIGITS = 9;

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const CODES = Object.keys(CURRENCY_DIGITS).join('|');
// A symbol that starts or ends with a letter ("US$", "kr", "zł") must not touch another letter.
const SYMBOL_ALT = [...SYMBOLS.map(([s]) => s), ...Object.keys(AMBIGUOUS)]
  .sort((a, b) => b.length - a.length)
  .map((s) => `${/^\p{L}/u.test(s) ? '(?<!\\p{L})' : ''}${literal(s)}${/\p{L}$/u.test(s) ? '(?!\\p{L})' : ''}`)
  .join('|');
// Digits joined by single separators; a space (any width) only before exactly three digits. At
// most five separators (999,999,999.99 has three): the bound keeps a long run of "111 111 …"
// from costing quadratic time.
const NUM = String.raw`\d+(?:(?:[.,'’]|[ \u00a0\u202f\u2009](?=\d{3}(?!\d)))\d+){0,5}`;
const CUR = String.raw`(?:${SYMBOL_ALT}|(?<![\p{L}])(?:${CODES})(?![\p{L}]))`;
const SIGN = '[-−–]';
const MONEY = new RegExp(
  String.raw`(?<open>\(\s?)?(?:` +
    String.raw`(?<s1>${SIGN}\s?)?(?<pc>${CUR})\s?(?<s2>${SIGN}\s?)?(?<pn>${NUM})` +
    '|' +
    // a currency between two numbers belongs to the one after it ("#1234 USD 12.99")
    String.raw`(?<s3>${SIGN}\s?)?(?<![\d.,])(?<sn>${NUM})\s?(?<sc>${CUR})(?!\s?${SIGN}?\s?\d)` +
    ')',
  'gu',
);
const ADJACENT_CODE_AFTER = new RegExp(String.raw`^\s?(${CODES})(?![\p{L}])`, 'u');
const ADJACENT_CODE_BEFORE = new RegExp(String.raw`(?<![\p{L}])(${CODES})\s?$`, 'u');
const ANY_CODE = new RegExp(String.raw`(?<![\p{L}])(${CODES})(?![\p{L}])`, 'gu');
const SYMBOL_MAP = new Map(SYMBOLS);

/** The amounts of money in `text`, in order (the first `limit` of them). */
export function findMoney(text: string, limit = Number.POSITIVE_INFINITY): Money[] {
  const named = new Set<string>();
  for (const m of text.matchAll(ANY_CODE)) named.add(m[1]!);
  const out: Money[] = [];
  for (const m of text.matchAll(MONEY)) {
    if (out.length >= limit) break;
    const g = m.groups!;
    const number = g.pn ?? g.sn!;
    const after = text.slice(m.index + m[0].length);
    // a number running on ("12.99.2026", "€1e9") or a symbol running into a word ("9 $Infinity")
    if (/^[.,]?\d|^[\p{L}]/u.test(after)) continue;
    const symbol = (g.pc ?? g.sc)!;
    const currency = currencyOf(symbol, text.slice(Math.max(0, m.index - 5), m.index), after.slice(0, 5), named);
    if (currency === null) continue;
    const minor = parseAmount(number, CURRENCY_DIGITS[currency] ?? 2);
    if (minor === null) continue;
    let end = m.index + m[0].length;
    const closes = g.open !== undefined && /^\s?\)/.exec(after);
    if (closes) end += closes[0].length;
    out.push({
      start: m.index,
      end,
      minor,
      currency,
      negative: Boolean(g.s1 || g.s2 || g.s3 || closes),
    });
  }
  return out;
}

function currencyOf(symbol: string, before: string, after: string, named: Set<string>): string | null {
  if (isCurrencyCode(symbol)) return symbol;
  const fixed = SYMBOL_MAP.get(symbol);
  if (fixed) return fixed;
  const shared = AMBIGUOUS[symbol];
  if (!shared) return null;
  const adjacent = ADJACENT_CODE_AFTER.exec(after)?.[1] ?? ADJACENT_CODE_BEFORE.exec(before)?.[1];
  if (adjacent && shared.family.includes(adjacent)) return adjacent;
  const inText = shared.family.filter((c) => named.has(c));
  if (inText.length === 1) return inText[0]!;
  return inText.length === 0 ? shared.fallback : null;
}

/**
 * "1,234.56" → 123456 (with 2 minor digits); null when the separators do not make a number.
 * Apostrophes and spaces only ever group thousands ("1'234.50", "1 234,56").
 */
export function parseAmount(token: string, minorDigits: number): number | null {
  const parts = token.split(/([^\d])/);
  const digits = parts.filter((_, i) => i % 2 === 0);
  const seps = parts.filter((_, i) => i % 2 === 1);
  let integer: string;
  let fraction = '';
  if (seps.length === 0) integer = digits[0]!;
  else {
    const last = seps.at(-1)!;
    const tail = digits.at(-1)!;
    const decimal = (last === '.' || last === ',') && tail.length <= 2;
    const groupSeps = decimal ? seps.slice(0, -1) : seps;
    const groups = decimal ? digits.slice(0, -1) : digits;
    if (groupSeps.length > 0) {
      if (!groupSeps.every((s) => s === groupSeps[0]) || (decimal && groupSeps[0] === last)) return null;
      if (groups[0]!.length > 3 || groups[0] === '0' || groups.slice(1).some((d) => d.length !== 3)) return null;
    }
    integer = groups.join('');
    if (decimal) fraction = tail;
  }
  integer = integer.replace(/^0+(?=\d)/, '');
  if (integer.length > MAX_INTEGER_DIGITS) return null;
  const scaled = (fraction + '0'.repeat(minorDigits)).slice(0, minorDigits);
  const dropped = fraction.slice(minorDigits);
  let minor = Number(integer) * 10 ** minorDigits + (scaled ? Number(scaled) : 0);
  if (dropped && Number(dropped[0]) >= 5) minor += 1; // ¥1200.50 → ¥1201
  return minor;
}
