/**
 * One table row per subscription, built with DOM calls (sender names and subjects come
 * from strangers' mail: they are only ever set as text). A row is updated in place when
 * the same id arrives again with larger counts.
 */

import type { Subscription, UnsubscribeResultMessage } from '../../../channel/protocol.ts';
import { verdictSpans } from '../../shared/words.ts';
import { el, fill, spans } from '../shared/dom.ts';
import { seenRange, senderContext } from './context.ts';
import { PENDING_WORDS, type Pending, plainStatus, sinceYouLeft, technicalLines } from './statuses.ts';
import { num, percent, perMonth, WITHHELD_WORDS } from './words.ts';

export interface Row {
  sub: Subscription;
  tr: HTMLTableRowElement;
  select: HTMLInputElement;
  include: HTMLInputElement;
  cells: Record<
    'sender' | 'count' | 'perMonth' | 'read' | 'seen' | 'methods' | 'service' | 'status',
    HTMLTableCellElement
  >;
}

/** what the audit found each paid service costs a month ("$17.99 a month"), by catalog slug */
const spendBySlug = new Map<string, string>();

/** The audit's figures, shown beside each matched service from now on (until the next scan). */
export function setSpend(spend: Map<string, string>): void {
  spendBySlug.clear();
  for (const [slug, text] of spend) spendBySlug.set(slug, text);
}

/** Forged-looking or junk-only senders are acted on only when the person includes them. */
export const isFlagged = (s: Subscription) => s.auth.dkim === 'fail' || s.auth.dmarc === 'fail' || s.junk_only;

export const isRarelyRead = (s: Subscription) => s.read_rate < 0.2 && s.count >= 3;
export const isNeverRead = (s: Subscription) => s.read_rate === 0;
/** a sender matched to the catalog, which lists paid services only */
export const isPaidService = (s: Subscription) => s.service !== null;

function flagReason(s: Subscription): string {
  if (s.junk_only) return 'Found only in Junk/Spam: likely spam. Unsubscribing would confirm your address.';
  return 'Failed sender authentication (DKIM/DMARC): may be forged.';
}

/** `short`: the unit the compact (phone) layout writes after the figure */
function td(label: string, className = '', short = ''): HTMLTableCellElement {
  return el('td', { className, attrs: { 'data-label': label, ...(short ? { 'data-short': short } : {}) } });
}

export function createRow(sub: Subscription): Row {
  const tr = el('tr', { attrs: { 'data-id': sub.id, 'data-list-key': sub.list_key } });
  const select = el('input', { attrs: { type: 'checkbox', 'data-role': 'select' } });
  const include = el('input', { attrs: { type: 'checkbox', 'data-role': 'include' } });
  const cells = {
    sender: td('Sender', 'sender'),
    count: td('Emails', 'num stat', 'emails'),
    perMonth: td('Per month', 'num stat', 'a month'),
    read: td('Read', 'num stat', 'read'),
    seen: td('First – last seen', 'stat date'),
    methods: td('Unsubscribe by', 'wide methods'),
    service: td('Service', 'wide service'),
    status: td('Status', 'row-status wide'),
  };
  tr.append(el('td', { className: 'col-select' }, [select]), ...Object.values(cells));
  const row: Row = { sub, tr, select, include, cells };
  updateRow(row, sub);
  return row;
}

export function updateRow(row: Row, sub: Subscription): void {
  row.sub = sub;
  const { cells } = row;
  const who = sub.sender.name || sub.sender.address;
  row.select.setAttribute('aria-label', `Select ${who}`);
  row.include.setAttribute('aria-label', `Include ${who} anyway`);
  row.tr.classList.toggle('flagged', isFlagged(sub));

  const extras: (Node | null)[] = [];
  if (isFlagged(sub)) {
    extras.push(
      el('span', { className: 'flag' }, [
        el('span', { className: 'badge warn', text: 'Check first' }),
        el('span', { className: 'small', text: ` ${flagReason(sub)} ` }),
        el('label', { className: 'check small' }, [row.include, ' Include anyway']),
      ]),
    );
  }
  const since = sinceYouLeft(sub);
  if (since) extras.push(el('span', { className: `badge since ${since.tone}`, text: since.text }));
  fill(cells.sender, [
    el('span', { className: 'sender-name', text: sub.sender.name || sub.sender.domain }),
    el('span', { className: 'sender-address', text: sub.sender.address }),
    ...senderContext(sub),
    ...extras,
  ]);

  cells.count.textContent = num(sub.count);
  cells.perMonth.textContent = perMonth(sub.per_month);
  cells.read.textContent = percent(sub.read_rate);
  fill(cells.seen, seenRange(sub));

  const methods: Node[] = [];
  if (sub.methods.one_click) methods.push(el('span', { className: 'badge method', text: 'one-click' }));
  if (sub.methods.mailto.length) methods.push(el('span', { className: 'badge method', text: 'email' }));
  if (sub.methods.http.some((u) => u !== sub.methods.one_click))
    methods.push(el('span', { className: 'badge method', text: 'link' }));
  if (sub.one_click_withheld)
    methods.push(el('span', { className: 'small muted withheld', text: ` ${WITHHELD_WORDS[sub.one_click_withheld]}` }));
  fill(cells.methods, methods);

  const s = sub.service;
  fill(
    cells.service,
    s
      ? [
          el('a', { text: s.name, attrs: { href: `/services/${encodeURIComponent(s.slug)}` } }),
          ' ',
          spans(verdictSpans(s.tier, s.difficulty)),
          spendBySlug.has(s.slug)
            ? el('span', { className: 'spend small', text: ` ${spendBySlug.get(s.slug)}` })
            : null,
        ]
      : [el('span', { className: 'muted', text: '—' })],
  );
}

/** The row waits for its answer, or lost the way to it (statuses.ts `Pending`). */
export function setPending(row: Row, kind: Pending): void {
  const w = PENDING_WORDS[kind];
  row.tr.dataset.pending = kind;
  fill(row.cells.status, [el('span', { className: `badge ${w.tone}`, text: w.label })]);
}

/** Clears a "Working…" status that will get no result (the request was refused before anything was sent). */
export function clearPending(row: Row): void {
  if (row.tr.dataset.pending === undefined) return;
  delete row.tr.dataset.pending;
  row.cells.status.replaceChildren();
}

export const isPending = (row: Row) => row.tr.dataset.pending !== undefined;

export function setRowStatus(row: Row, r: UnsubscribeResultMessage): void {
  delete row.tr.dataset.pending;
  const plain = plainStatus(r, isFlagged(row.sub));
  const parts: (Node | null)[] = [el('span', { className: `badge ${plain.tone}`, text: plain.label })];
  // RFC 3986 §3.1: the scheme is case-insensitive (the scan sends it lower-cased; this is belt and braces)
  if (r.status === 'open_link' && r.url && /^https?:\/\//i.test(r.url)) {
    parts.push(
      el('a', {
        className: 'small open-link',
        text: 'Open the sender’s page',
        attrs: { href: r.url, target: '_blank', rel: 'noopener noreferrer' },
      }),
    );
  }
  if (r.archived)
    parts.push(el('span', { className: 'small muted', text: `${num(r.archived)} old messages archived` }));
  parts.push(
    el('details', { className: 'tech small' }, [
      el('summary', { text: 'Details' }),
      ...technicalLines(r).map((t) => el('p', { className: 'tech-line', text: t })),
    ]),
  );
  fill(row.cells.status, parts);
  row.tr.dataset.status = r.dry_run ? `planned-${r.status}` : r.status;
}
