/**
 * What a person needs to see about a sender before deciding: a few recent subjects, where
 * its mail sits, when it began and last wrote (what the scan found since an earlier
 * unsubscription is in statuses.ts). Subjects come from strangers' mail and are only ever set
 * as text.
 */
import type { Subscription } from '../../../channel/protocol.ts';
import { el } from '../shared/dom.ts';
import { day } from './words.ts';

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

/** The folders the mail was found in ("In INBOX", never broken after "In"), and recent subjects (newest first). */
export function senderContext(s: Subscription): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (s.mailboxes.length) {
    out.push(el('span', { className: 'folders small muted', text: `In\u00a0${s.mailboxes.join(', ')}` }));
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
