/**
 * One table row per subscription, built with DOM calls (sender names and subjects come
 * from strangers' mail: they are only ever set as text). A row is updated in place when
 * the same id arrives again with larger counts.
 */

import type { Subscription, UnsubscribeResultMessage, Verification } from '../../../channel/protocol.ts';
import { TIER_LABEL } from '../../shared/words.ts';
import { el, fill } from '../shared/dom.ts';
import { day, num, percent, perMonth, statusLabel, WITHHELD_WORDS } from './words.ts';

export interface Row {
  sub: Subscription;
  tr: HTMLTableRowElement;
  select: HTMLInputElement;
  include: HTMLInputElement;
  cells: Record<
    'sender' | 'count' | 'perMonth' | 'read' | 'last' | 'methods' | 'service' | 'status',
    HTMLTableCellElement
  >;
}

/** Forged-looking or junk-only senders are acted on only when the person includes them. */
export const isFlagged = (s: Subscription) => s.auth.dkim === 'fail' || s.auth.dmarc === 'fail' || s.junk_only;

export const isRarelyRead = (s: Subscription) => s.read_rate < 0.2 && s.count >= 3;

const VERIFY: Record<Verification, [string, string]> = {
  ineffective: ['bad', 'Still mailing after you unsubscribed'],
  verified_quiet: ['ok', 'Quiet since you unsubscribed'],
  pending: ['pending', 'Unsubscribed recently; checking'],
};

function flagReason(s: Subscription): string {
  if (s.junk_only) return 'Found only in Junk/Spam: likely spam. Unsubscribing would confirm your address.';
  return 'Failed sender authentication (DKIM/DMARC): may be forged.';
}

function td(label: string, className = ''): HTMLTableCellElement {
  return el('td', { className, attrs: { 'data-label': label } });
}

export function createRow(sub: Subscription): Row {
  const tr = el('tr', { attrs: { 'data-id': sub.id, 'data-list-key': sub.list_key } });
  const select = el('input', { attrs: { type: 'checkbox', 'data-role': 'select' } });
  const include = el('input', { attrs: { type: 'checkbox', 'data-role': 'include' } });
  const cells = {
    sender: td('Sender', 'sender'),
    count: td('Emails', 'num stat'),
    perMonth: td('Per month', 'num stat'),
    read: td('Read', 'num stat'),
    last: td('Last seen', 'stat date'),
    methods: td('Unsubscribe by', 'wide'),
    service: td('Service', 'wide'),
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
  const v = sub.verification ? VERIFY[sub.verification] : undefined;
  if (v) extras.push(el('span', { className: `badge ${v[0]}`, text: v[1] }));
  fill(cells.sender, [
    el('span', { className: 'sender-name', text: sub.sender.name || sub.sender.domain }),
    el('span', { className: 'sender-address', text: sub.sender.address }),
    ...extras,
  ]);

  cells.count.textContent = num(sub.count);
  cells.perMonth.textContent = perMonth(sub.per_month);
  cells.read.textContent = percent(sub.read_rate);
  cells.last.textContent = day(sub.last_seen);

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
          el('span', {
            className: `tier tier-${s.tier}`,
            text: (TIER_LABEL as Record<string, string>)[s.tier] ?? s.tier,
          }),
        ]
      : [el('span', { className: 'muted', text: '—' })],
  );
}

/** Clears a "Working…" status that will get no result (the request was refused). */
export function clearWorking(row: Row): void {
  if (row.tr.dataset.working === undefined) return;
  delete row.tr.dataset.working;
  row.cells.status.replaceChildren();
}

export function setRowStatus(row: Row, r: UnsubscribeResultMessage | 'working'): void {
  if (r === 'working') {
    row.tr.dataset.working = '1';
    fill(row.cells.status, [el('span', { className: 'badge pending', text: 'Working…' })]);
    return;
  }
  delete row.tr.dataset.working;
  const tone = r.status === 'failed' ? 'bad' : r.status === 'skipped' ? 'warn' : r.dry_run ? 'pending' : 'ok';
  const parts: (Node | null)[] = [el('span', { className: `badge ${tone}`, text: statusLabel(r) })];
  // RFC 3986 §3.1: the scheme is case-insensitive (the scan sends it lower-cased; this is belt and braces)
  if (r.status === 'open_link' && r.url && /^https?:\/\//i.test(r.url)) {
    parts.push(
      el('a', {
        className: 'small',
        text: 'Open page',
        attrs: { href: r.url, target: '_blank', rel: 'noopener noreferrer' },
      }),
    );
  }
  if (r.detail) parts.push(el('span', { className: 'small muted detail', text: r.detail }));
  if (r.archived) parts.push(el('span', { className: 'small muted', text: `${num(r.archived)} archived` }));
  fill(row.cells.status, parts);
  row.tr.dataset.status = r.dry_run ? `planned-${r.status}` : r.status;
}
