/** Small formatting helpers shared by the pages (English, UTC: pages are cached and shared). */
const DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
const DATE_TIME = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
  timeZoneName: 'short',
});

/** '2026-11-22' or an ISO timestamp → '22 November 2026' */
export const formatDate = (iso: string) => DATE.format(new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso));

/** ISO timestamp → '22 Nov 2026, 14:05 UTC' */
export const formatDateTime = (iso: string) => DATE_TIME.format(new Date(iso));

/** '2026-11-22' → '2026-11-22T00:00:00Z' (Atom and Open Graph want full timestamps) */
export const dayStamp = (day: string) => `${day}T00:00:00Z`;

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
