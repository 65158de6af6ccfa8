/**
 * How the tool writes numbers, dates and the scan's phases; what it says about unsubscribe
 * outcomes is in statuses.ts, its advice on errors in advice.ts.
 */
import type { DoneMessage, ProgressMessage, Subscription } from '../../../channel/protocol.ts';

const NUM = new Intl.NumberFormat('en');
const DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
const TIME = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', weekday: 'short' });
const CLOCK = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit' });

export const num = (n: number) => NUM.format(n);
export const percent = (rate: number) => `${Math.round(rate * 100)}%`;
export const perMonth = (n: number) => (n >= 10 ? String(Math.round(n)) : n.toFixed(1));
export const day = (iso: string | null) => (iso ? DAY.format(new Date(iso)) : '—');
/** "14:32", in the person's time zone */
export const clock = (iso: string | Date) => CLOCK.format(new Date(iso));
/** "Tue 14:32", in the person's time zone */
export const weekdayClock = (iso: string) => TIME.format(new Date(iso));
export const plural = (n: number, one: string, many = `${one}s`) => `${num(n)} ${n === 1 ? one : many}`;

export function phaseText(p: ProgressMessage): string {
  switch (p.phase) {
    case 'connecting':
      return 'Connecting to your mail server…';
    case 'listing':
      return 'Looking at your folders…';
    case 'searching':
      return `Finding messages${p.mailbox ? ` in ${p.mailbox}` : ''}…`;
    case 'fetching':
      return `Reading message headers: ${num(p.done)} of ${num(p.total)}${p.mailbox ? ` (${p.mailbox})` : ''}`;
    case 'finishing':
      return 'Finishing up…';
    case 'audit':
      return p.total ? `Reading receipts: ${num(p.done)} of ${num(p.total)}` : 'Looking for receipts…';
  }
}

/** Why a sender's one-click is not offered (docs/unsubscribe.md "One-click needs a signature"). */
export const WITHHELD_WORDS: Record<NonNullable<Subscription['one_click_withheld']>, string> = {
  unauthenticated: 'One-click not offered: no signature check was recorded for this mail.',
  dkim_failed: 'One-click not offered: the mail’s signature did not verify.',
  not_aligned: 'One-click not offered: the mail was signed by another domain.',
  list_headers_unsigned: 'One-click not offered: the signature does not cover the unsubscribe headers.',
};

/** What a scan left out at one of its bounds (docs/websocket.md, `done.capped`). */
export function cappedText(c: DoneMessage['capped'][number]): string {
  switch (c.cap) {
    case 'messages':
      return `A scan reads at most ${num(c.limit)} messages, so your ${plural(c.count, 'oldest message')} ${c.count === 1 ? 'was' : 'were'} not read.`;
    case 'header_bytes':
      return `${plural(c.count, 'message')} had unusually large headers; only their first ${num(Math.round(c.limit / 1024))} KB ${c.count === 1 ? 'was' : 'were'} read.`;
    case 'subscriptions':
      return `A scan keeps at most ${num(c.limit)} senders, so ${plural(c.count, 'message')} from further senders ${c.count === 1 ? 'is' : 'are'} not listed.`;
  }
}
