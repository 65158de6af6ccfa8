/**
 * Currencies a receipt may name: ISO 4217 codes with their minor-unit digits, and the
 * symbols mail uses for them. A symbol that several currencies share ("$", "kr") is read
 * as one currency only where the message says which (money.ts decides; docs/audit.md).
 */

/** ISO 4217 alphabetic codes the audit reads, with the digits of their minor unit. */
export const CURRENCY_DIGITS: Readonly<Record<string, number>> = {
  AED: 2,
  ARS: 2,
  AUD: 2,
  BGN: 2,
  BRL: 2,
  CAD: 2,
  CHF: 2,
  CLP: 0,
  CNY: 2,
  COP: 2,
  CZK: 2,
  DKK: 2,
  EGP: 2,
  EUR: 2,
  GBP: 2,
  HKD: 2,
  HUF: 2,
  IDR: 2,
  ILS: 2,
  INR: 2,
  ISK: 0,
  JPY: 0,
  KRW: 0,
  MXN: 2,
  MYR: 2,
  NGN: 2,
  NOK: 2,
  NZD: 2,
  PHP: 2,
  PLN: 2,
  RON: 2,
  RUB: 2,
  SAR: 2,
  SEK: 2,
  SGD: 2,
  THB: 2,
  TRY: 2,
  TWD: 2,
  UAH: 2,
  USD: 2,
  VND: 0,
  ZAR: 2,
};

export const isCurrencyCode = (s: string): boolean => Object.hasOwn(CURRENCY_DIGITS, s);

/**
 * Symbols (and local abbreviations) → the currency they always mean. Longer forms first
 * where one is a prefix of another ("US$" before "$").
 */
export const SYMBOLS: readonly (readonly [symbol: string, currency: string])[] = [
  ['US$', 'USD'],
  ['CA$', 'CAD'],
  ['C$', 'CAD'],
  ['AU$', 'AUD'],
  ['A$', 'AUD'],
  ['NZ$', 'NZD'],
  ['HK$', 'HKD'],
  ['S$', 'SGD'],
  ['R$', 'BRL'],
  ['AR$', 'ARS'],
  ['MX$', 'MXN'],
  ['€', 'EUR'],
  ['£', 'GBP'],
  ['₹', 'INR'],
  ['₩', 'KRW'],
  ['₺', 'TRY'],
  ['₽', 'RUB'],
  ['₪', 'ILS'],
  ['₫', 'VND'],
  ['₱', 'PHP'],
  ['zł', 'PLN'],
  ['Kč', 'CZK'],
  ['Ft', 'HUF'],
  ['лв', 'BGN'],
  ['Rs.', 'INR'],
  ['Rs', 'INR'],
];

/** Symbols shared by several currencies: the currency they mean when the message names none. */
export const AMBIGUOUS: Readonly<Record<string, { fallback: string | null; family: readonly string[] }>> = {
  // A bare "$" is the US dollar unless the message names another dollar (then that one).
  $: { fallback: 'USD', family: ['USD', 'CAD', 'AUD', 'NZD', 'HKD', 'SGD', 'MXN', 'ARS', 'CLP', 'COP', 'TWD'] },
  // "kr" is Swedish, Norwegian, Danish or Icelandic: nothing without a code in the message.
  kr: { fallback: null, family: ['SEK', 'NOK', 'DKK', 'ISK'] },
  // "¥" is the yen unless the message names the yuan.
  '¥': { fallback: 'JPY', family: ['JPY', 'CNY'] },
};

/** Minor units → major units, rounded to cents (what the audit reports). */
export function toMajor(minor: number, currency: string): number {
  const digits = CURRENCY_DIGITS[currency] ?? 2;
  return Math.round((minor / 10 ** digits) * 100) / 100;
}
