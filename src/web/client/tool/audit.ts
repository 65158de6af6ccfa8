/**
 * The audit panel (docs/audit.md): spend per service with the monthly totals per currency, and
 * how often list mail comes and how much of it is read. Sender names come from strangers' mail
 * and are only ever set as text.
 */
import type { AuditResultMessage, ProgressMessage } from '../../../channel/protocol.ts';
import { verdictSpans } from '../../shared/words.ts';
import { byId, el, fill, spans } from '../shared/dom.ts';
import { setSpend } from './rows.ts';
import { redrawRows } from './table.ts';
import { day, num, percent, perMonth, plural } from './words.ts';

type AuditShape = AuditResultMessage['audit'];

const PERIOD_WORD: Record<string, string> = {
  P1W: 'Weekly',
  P2W: 'Every 2 weeks',
  P4W: 'Every 4 weeks',
  P1M: 'Monthly',
  P3M: 'Quarterly',
  P6M: 'Every 6 months',
  P1Y: 'Yearly',
};

/** One English format for every currency, with its symbol: "$17.99", "€12.99", "£44.99". */
export function money(amount: number, currency: string): string {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).format(amount);
}

function periodWord(p: string | null): string {
  return p === null ? 'Unknown' : (PERIOD_WORD[p] ?? p);
}

export function auditProgress(p: ProgressMessage): void {
  const label = byId('audit-progress');
  label.hidden = false;
  label.textContent =
    p.total === 0
      ? 'Looking for receipts from the services in our catalog…'
      : `Reading receipts: ${num(p.done)} of ${num(p.total)}`;
}

export function resetAudit(show: boolean): void {
  byId('audit').hidden = !show;
  byId('audit-progress').hidden = true;
  byId('audit-result').hidden = true;
  fill(byId('audit-result'), []);
  byId<HTMLButtonElement>('audit-button').disabled = false;
}

function spendTable(a: AuditShape): HTMLElement {
  const head = ['Service', 'Last amount', 'Billed', 'Per month', 'Last charged', 'Receipts', 'Cancelling'];
  const cell = (label: string, text: string, className = '') =>
    el('td', { className, text, attrs: { 'data-label': label } });
  const rows = a.spend.services.map((s) =>
    el('tr', { attrs: { 'data-slug': s.slug } }, [
      el('th', { attrs: { scope: 'row' } }, [el('a', { text: s.name, attrs: { href: s.guide_url } })]),
      cell(head[1]!, s.amount === null || s.currency === null ? 'Not found' : money(s.amount, s.currency), 'num'),
      cell(head[2]!, s.amount === null ? '—' : periodWord(s.billing_period)),
      cell(
        head[3]!,
        s.monthly_amount === null || s.currency === null ? '—' : money(s.monthly_amount, s.currency),
        'num',
      ),
      cell(head[4]!, s.last_charged ? day(s.last_charged) : 'Renewal notice only'),
      cell(head[5]!, num(s.receipts), 'num'),
      el('td', { attrs: { 'data-label': head[6]! } }, [spans(verdictSpans(s.tier, s.difficulty))]),
    ]),
  );
  return el('div', { className: 'table-wrap' }, [
    el('table', { className: 'audit-table', attrs: { id: 'audit-spend' } }, [
      el('caption', { className: 'visually-hidden', text: 'What each service costs, from its receipts' }),
      el('thead', {}, [
        el(
          'tr',
          {},
          head.map((h) => el('th', { text: h, attrs: { scope: 'col' } })),
        ),
      ]),
      el('tbody', {}, rows),
    ]),
  ]);
}

function totals(a: AuditShape): HTMLElement {
  const t = a.spend.monthly_total;
  if (t.length === 0) {
    return el('p', {
      attrs: { id: 'audit-totals' },
      text: a.spend.services.length
        ? 'We found receipts, but no amount we could read for sure.'
        : 'We found no receipts from the services in our catalog in the mail we read.',
    });
  }
  return el(
    'ul',
    { className: 'audit-totals', attrs: { id: 'audit-totals' } },
    t.map((x) => el('li', {}, [el('strong', { text: money(x.amount, x.currency) }), ' a month in ', x.currency])),
  );
}

function frequency(a: AuditShape): HTMLElement[] {
  const f = a.frequency;
  const top = el(
    'ol',
    { className: 'audit-top', attrs: { id: 'audit-top' } },
    f.top.map((s) =>
      el('li', {}, [
        el('span', { className: 'sender', text: s.sender.name || s.sender.address }),
        ` — ${perMonth(s.per_month)} a month, ${percent(s.read_rate)} read`,
      ]),
    ),
  );
  const out: HTMLElement[] = [
    el('h3', { text: 'How often they write' }),
    el('p', {
      attrs: { id: 'audit-frequency' },
      text: `${perMonth(f.per_month)} list emails a month from ${plural(a.senders, 'sender')}. You never opened anything from ${percent(f.never_read_share)} of them. Reading the rest takes about ${perMonth(f.reading_minutes_per_month)} minutes a month.`,
    }),
  ];
  if (f.top.length) out.push(el('p', { className: 'small muted', text: 'Who writes most:' }), top);
  return out;
}

/** Each service's monthly cost beside its senders in the results ("$17.99 a month"). */
function spendOnRows(a: AuditShape): void {
  const spend = new Map<string, string>();
  for (const s of a.spend.services) {
    if (s.monthly_amount !== null && s.currency !== null)
      spend.set(s.slug, `${money(s.monthly_amount, s.currency)} a month`);
  }
  setSpend(spend);
  redrawRows();
}

export function renderAudit(m: AuditResultMessage): void {
  const a = m.audit;
  spendOnRows(a);
  byId('audit-progress').hidden = true;
  byId<HTMLButtonElement>('audit-button').disabled = false;
  const box = byId('audit-result');
  const span = a.period.from ? `${day(a.period.from)} – ${day(a.period.to)}` : `up to ${day(a.period.to)}`;
  fill(box, [
    m.cancelled
      ? el('p', { className: 'note', text: 'Stopped early: this covers the receipts read until then.' })
      : null,
    el('h3', { text: 'What you pay for' }),
    totals(a),
    a.spend.services.length ? spendTable(a) : null,
    el('p', {
      className: 'small muted',
      text: `From receipts, invoices and renewal notices in ${plural(a.messages, 'message')} (${span}). Totals are per currency: we do not convert. Offers and discounts in those emails are not counted.`,
    }),
    ...frequency(a),
  ]);
  box.hidden = false;
  box.focus();
}
