/**
 * What a row says about its unsubscribe: one plain status a person can act on, and the
 * technical record (method, outcome code, the server's own account with any HTTP status)
 * behind a "Details" toggle. The words never claim more than the outcome proves: a 2xx to a
 * one-click POST means the sender accepted the request, not that its mail has stopped, and an
 * email accepted by the person's SMTP server still waits for the sender; a later scan tells
 * whether the list stopped (docs/unsubscribe.md, "Checking that it worked") — and what that
 * later scan found is said here too (sinceYouLeft).
 */
import type { Subscription, UnsubscribeResultMessage } from '../../../channel/protocol.ts';
import { day, plural } from './words.ts';

type Outcome = UnsubscribeResultMessage['status'];
export type Tone = 'ok' | 'warn' | 'bad' | 'pending';

/** done: what happened; planned: what a dry run says would happen */
const PLAIN: Record<Outcome, { done: string; planned: string; tone: Tone }> = {
  unsubscribed: {
    done: 'Unsubscribe request accepted by the sender',
    planned: 'Would send the sender a one-click unsubscribe request',
    tone: 'ok',
  },
  email_sent: {
    done: 'Email sent from your address',
    planned: 'Would send an unsubscribe email from your address',
    tone: 'ok',
  },
  open_link: { done: 'Needs you: open this link', planned: 'Would need you to open a link', tone: 'warn' },
  skipped: { done: 'Not sent', planned: 'Would not be sent', tone: 'warn' },
  failed: {
    done: 'Not sent — try again',
    planned: 'Would not be sent: no method can be used',
    tone: 'bad',
  },
};

type AttemptOutcome = NonNullable<UnsubscribeResultMessage['attempts']>[number]['outcome'];

/** A failure in words, from how its attempts ended: the most useful next step first. */
const FAILED: [test: (o: AttemptOutcome) => boolean, label: string][] = [
  [(o) => ['timeout', 'network', 'dns', 'tls', 'connect'].includes(o), 'Could not reach the sender — try again'],
  [(o) => o === 'rejected', 'The sender refused the request — try again later'],
  [(o) => o === 'auth', 'Your mail provider refused to send it — check your app password, then try again'],
  [(o) => o === 'no_smtp', 'Not sent: no outgoing mail server is known for your address'],
  [(o) => o === 'blocked' || o === 'not_https', 'Not sent: the sender’s unsubscribe address is not safe to contact'],
];

function failedLabel(r: Pick<UnsubscribeResultMessage, 'attempts'>): string {
  const outcomes = (r.attempts ?? []).map((a) => a.outcome);
  return FAILED.find(([test]) => outcomes.some(test))?.[1] ?? PLAIN.failed.done;
}

/** Why a sender was skipped, in the row's own terms (the server's detail has the full reason). */
const SKIP_WHY = {
  flagged: ': check this sender first',
  none: ': this sender offers no way to unsubscribe',
};

export function plainStatus(
  r: Pick<UnsubscribeResultMessage, 'status' | 'dry_run' | 'attempts'>,
  flagged: boolean,
): { label: string; tone: Tone } {
  const p = PLAIN[r.status];
  if (r.dry_run) return { label: p.planned + skipWhy(r, flagged), tone: 'pending' };
  if (r.status === 'failed') return { label: failedLabel(r), tone: p.tone };
  return { label: p.done + skipWhy(r, flagged), tone: p.tone };
}

const skipWhy = (r: Pick<UnsubscribeResultMessage, 'status'>, flagged: boolean) =>
  r.status === 'skipped' ? SKIP_WHY[flagged ? 'flagged' : 'none'] : '';

const METHOD_SHORT = { one_click: 'one-click', mailto: 'email', link: 'link' } as const;

const METHOD_NAME: Record<NonNullable<UnsubscribeResultMessage['method']>, string> = {
  one_click: 'one-click (RFC 8058: an HTTPS POST to the sender)',
  mailto: 'email (RFC 2369 mailto, sent through your provider)',
  link: 'a web page for you to open',
};

/** The lines behind "Details": method, the outcome's code, and the server's own account. */
export function technicalLines(r: UnsubscribeResultMessage): string[] {
  const lines = [
    `Method: ${r.method ? METHOD_NAME[r.method] : 'none used'}`,
    `Outcome: ${r.status}${r.dry_run ? ' (dry run: nothing was sent)' : ''}`,
  ];
  if (r.attempts?.length) {
    const tried = r.attempts.map(
      (a) => `${METHOD_SHORT[a.method]} → ${a.outcome}${a.http_status ? ` (HTTP ${a.http_status})` : ''}`,
    );
    lines.push(`Tried: ${tried.join('; ')}`);
  }
  if (r.one_click_withheld) lines.push(`One-click withheld: ${r.one_click_withheld}`);
  if (r.detail) lines.push(r.detail);
  return lines;
}

/**
 * A row waiting for its answer. `lost`: the connection dropped and the page is reconnecting
 * (the server goes on meanwhile and reports on reconnection); `unknown`: the sign-in is gone,
 * so this page will not hear what happened; `unanswered`: the batch ended without a result
 * for this row (it should not happen; the row must not keep saying "Working…").
 */
export type Pending = 'working' | 'lost' | 'unknown' | 'unanswered';

export const PENDING_WORDS: Record<Pending, { label: string; tone: Tone }> = {
  working: { label: 'Working…', tone: 'pending' },
  lost: { label: 'Connection lost before an answer — reconnecting', tone: 'warn' },
  unknown: { label: 'Connection lost before an answer — scan again to see if it went through', tone: 'warn' },
  unanswered: { label: 'No answer came for this sender — try again', tone: 'warn' },
};

/** Said once above the rows (not on each): what the rows left waiting mean, and what to do. */
export function waitingText(kind: 'lost' | 'unknown', n: number): string {
  const senders = plural(n, 'sender');
  return kind === 'lost'
    ? `The requests to ${senders} may already have gone out; their answers show in the table once the page is back in touch with our server.`
    : `No answer came for ${senders} before the connection was lost: the requests may or may not have reached them. A new scan in a couple of days shows which lists still mail you, and unsubscribing again is harmless.`;
}

/** the grace a sender gets after a request (src/channel/verification.ts, docs/unsubscribe.md) */
const GRACE_MS = 48 * 3600_000;

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
