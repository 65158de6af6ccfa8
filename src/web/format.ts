/** Small formatting helpers shared by the pages (English, UTC: pages are cached and shared). */
export { formatDateTime } from './shared/words.ts';

// Made on first use: a date format loads ICU's locale and time-zone data, ~7 MiB resident in a
// process that has not shown a date yet (docs/benchmarks.md, bench/memory).
let date: Intl.DateTimeFormat | undefined;

/** '2026-11-22' or an ISO timestamp → '22 November 2026' */
export const formatDate = (iso: string) => {
  date ??= new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
  return date.format(new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso));
};

/** '2026-11-22' → '2026-11-22T00:00:00Z' (Atom and Open Graph want full timestamps) */
export const dayStamp = (day: string) => `${day}T00:00:00Z`;

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
