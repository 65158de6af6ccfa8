/**
 * What a person needs to see about a sender before deciding: a few recent subjects, where
 * its mail sits, when it began and last wrote, and — when the browser told the scan of an
 * earlier unsubscription — what the scan found since. Subjects come from strangers' mail and
 * are only ever set as text.
 */
import type { Subscription } from '../../../channel/protocol.ts';
import { el } from '../shared/dom.ts';
import type { Tone } from './statuses.ts';
import { day, plural } from './words.ts';

/** the grace a sender gets after a request (src/channel/verification.ts, docs/unsubscribe.md) */
const GRACE_MS = 48 * 3600_000;

/** "3 Jan 2024 – 2 Nov 2026" (each date unbroken, the line may wrap after the dash), or one date */
export function seenRange(s: Subscription): HTMLElement[] {
  const first = day(s.first_seen);
  const last = day(s.last_seen);
  if (first === last) return [el('span', { className: 'nowrap', text: last })];
  return [
    el('span', { className: 'nowrap', text: `${first} –` }),
    el('span', { text: ' ' }),
    el('span', { className: 'nowrap', text: last }),
  ];
}

/** The folders the mail was found in, and recent subjects (newest first). */
export function senderContext(s: Subscription): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (s.mailboxes.length) {
    out.push(el('span', { className: 'folders small muted', text: `In ${s.mailboxes.join(', ')}` }));
  }
  if (s.sample_subjects.length) {
    out.push(
      el(
        'ul',
        { className: 'samples', attrs: { 'aria-label': 'Recent subjects' } },
        s.sample_subjects.map((t) => el('li', { text: t, attrs: { title: t } })),
      ),
    );
  }
  return out;
}

/** What the scan found after an earlier unsubscription from this list, or null. */
export function sinceYouLeft(s: Subscription): { tone: Tone; text: string } | null {
  if (!s.verification || !s.unsubscribed_at) return null;
  const n = s.since_unsubscribe;
  const left = day(s.unsubscribed_at);
  const count = n === undefined ? '' : `: ${plural(n, 'message')}`;
  switch (s.verification) {
    case 'ineffective':
      return { tone: 'bad', text: `Still mailing since you left on ${left}${count}` };
    case 'verified_quiet':
      return {
        tone: 'ok',
        text: n
          ? `Stopped: nothing new since two days after you left on ${left} (${plural(n, 'message')} in those two days)`
          : `Nothing new since you left on ${left}`,
      };
    case 'pending': {
      const check = day(new Date(Date.parse(s.unsubscribed_at) + GRACE_MS).toISOString());
      const so = n ? `${plural(n, 'message')} since` : 'nothing new since';
      return {
        tone: 'pending',
        text: `You left on ${left}, ${so}; senders may take two days, so scan again after ${check}`,
      };
    }
  }
}
