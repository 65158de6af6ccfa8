/** Small formatting helpers shared by the pages (English, UTC: pages are cached and shared). */
export { formatDateTime } from './shared/words.ts';

const DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

/** '2026-11-22' or an ISO timestamp → '22 November 2026' */
export const formatDate = (iso: string) => DATE.format(new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso));

/** '2026-11-22' → '2026-11-22T00:00:00Z' (Atom and Open Graph want full timestamps) */
export const dayStamp = (day: string) => `${day}T00:00:00Z`;

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
