/**
 * Words and formats that the server-rendered pages and the browser code both show, so a page
 * and its live update say the same thing. Imported by src/web (pages) and bundled into the
 * browser scripts (client-bundle.ts), so: no imports, and only `export` before declarations.
 */

export const TIER_LABEL = {
  effortless: 'Effortless',
  easy: 'Easy',
  moderate: 'Moderate',
  hard: 'Hard',
  very_hard: 'Very hard',
  trap: 'Trap',
};

/** A span of a badge: its class and what it holds, text or further spans. */
export interface BadgeSpan {
  className: string;
  parts: (string | BadgeSpan)[];
}

/**
 * The friction verdict as one badge, "Hard 5.0/10": the tier word and the score always together
 * (docs/catalog.md). `tier` is the tier `score` falls in, as the catalog computes it (tierOf,
 * src/catalog/friction/compute.ts); the service pages (labels.ts verdictBadge) and the browser
 * tool (client/shared/dom.ts spans) both build the badge from this one description.
 */
export function verdictSpans(tier: string, score: number): BadgeSpan {
  return {
    className: `verdict-badge tier-${tier}`,
    parts: [
      { className: 'tier-word', parts: [(TIER_LABEL as Record<string, string>)[tier] ?? tier] },
      ' ',
      { className: 'tier-score', parts: [score.toFixed(1), { className: 'tier-max', parts: ['/10'] }] },
    ],
  };
}

export const LINK_OUTCOME_LABEL: Record<string, string> = {
  ok: 'working',
  moved: 'working (moved)',
  broken: 'broken',
  blocked: 'blocked by bot protection',
  soft_404: 'looks like a missing page',
  off_domain: 'leads off the service’s site',
};

// English, UTC: pages are cached and shared, and the live update must match them. Made on first
// use: building it loads ICU's date data, ~18 ms of a server start that may not need it yet.
let dateTime: Intl.DateTimeFormat | undefined;
const makeDateTime = () =>
  new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  });

/** ISO timestamp → '22 Nov 2026, 14:05 UTC' */
export const formatDateTime = (iso: string) => {
  dateTime ??= makeDateTime();
  return dateTime.format(new Date(iso));
};

export interface LinkStatusWords {
  outcome: string;
  http_status: number | null;
  checked_at: string;
}

/** "Last checked 22 Nov 2026, 14:05 UTC: working (HTTP 200)." */
export const linkStatusLine = (s: LinkStatusWords) =>
  `Last checked ${formatDateTime(s.checked_at)}: ${LINK_OUTCOME_LABEL[s.outcome] ?? s.outcome}${s.http_status ? ` (HTTP ${s.http_status})` : ''}.`;

export interface LinkCheckWords {
  outcome: string;
  http_status: number | null;
  checked_at: string;
}

/** One link's latest check: "working, checked 22 Nov 2026, 14:05 UTC", or that none has run. */
export const linkCheckText = (c: LinkCheckWords | null | undefined) =>
  c
    ? `${LINK_OUTCOME_LABEL[c.outcome] ?? c.outcome}${c.http_status && c.outcome !== 'ok' ? ` (HTTP ${c.http_status})` : ''}, checked ${formatDateTime(c.checked_at)}`
    : 'Not checked yet';

/** What the scan form says it will read (docs/websocket.md "Folders"): the default, plus the ticked extras. */
export function foldersText(junk: boolean, trash: boolean): string {
  const extra = [junk ? 'Junk / Spam' : '', trash ? 'Trash' : ''].filter(Boolean);
  return `Folders: All Mail where your mail server has one (Gmail does), otherwise your Inbox and Archive${
    extra.length ? `; also ${extra.join(' and ')}` : '. Junk and Trash only if you tick them under More options'
  }.`;
}
