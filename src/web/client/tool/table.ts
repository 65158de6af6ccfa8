/**
 * The results table as a whole: rows by id, sorting (header buttons with aria-sort, and the
 * "Sort by" menu that phones use), what is shown (the text filter and the never read / paid
 * services view), and selection (all / none / rarely read among the visible rows).
 */

import type { Subscription } from '../../../channel/protocol.ts';
import { byId } from '../shared/dom.ts';
import {
  createRow,
  isFlagged,
  isNeverRead,
  isPaidService,
  isRarelyRead,
  type Row,
  setSpend,
  updateRow,
} from './rows.ts';
import { num } from './words.ts';

type SortKey = 'sender' | 'count' | 'per_month' | 'read_rate' | 'last_seen' | 'service';
type Dir = 'ascending' | 'descending';
type View = 'all' | 'never_read' | 'paid';

const VIEWS: Record<View, (s: Subscription) => boolean> = {
  all: () => true,
  never_read: isNeverRead,
  paid: isPaidService,
};

const rows = new Map<string, Row>();
let sortKey: SortKey = 'count';
let sortDir: Dir = 'descending';
let filterText = '';
let view: View = 'all';
let sortQueued = false;
let onSelectionChange: () => void = () => {};

const tbody = () => byId<HTMLTableSectionElement>('subs-body');

function sortValue(s: Subscription, key: SortKey): string | number {
  switch (key) {
    case 'sender':
      return (s.sender.name || s.sender.address).toLowerCase();
    case 'service':
      return s.service?.name.toLowerCase() ?? '\uffff'; // no service sorts last
    case 'last_seen':
      return s.last_seen ?? '';
    default:
      return s[key];
  }
}

function compare(a: Row, b: Row): number {
  const x = sortValue(a.sub, sortKey);
  const y = sortValue(b.sub, sortKey);
  const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
  return (sortDir === 'ascending' ? c : -c) || a.sub.sender.address.localeCompare(b.sub.sender.address);
}

function resort(): void {
  sortQueued = false;
  const body = tbody();
  for (const r of [...rows.values()].sort(compare)) body.append(r.tr);
  updateViewCounts();
}

function queueSort(): void {
  if (sortQueued) return;
  sortQueued = true;
  requestAnimationFrame(resort);
}

function matches(s: Subscription): boolean {
  if (!VIEWS[view](s)) return false;
  if (!filterText) return true;
  const hay = `${s.sender.name} ${s.sender.address} ${s.list_id ?? ''} ${s.service?.name ?? ''}`.toLowerCase();
  return hay.includes(filterText);
}

function updateSortHeaders(): void {
  for (const th of document.querySelectorAll<HTMLTableCellElement>('#subs th[data-sort]')) {
    if (th.dataset.sort === sortKey) th.setAttribute('aria-sort', sortDir);
    else th.removeAttribute('aria-sort');
  }
  // the menu shows the order the headers chose, or "by column" for one it does not list
  const menu = byId<HTMLSelectElement>('sort-by');
  const value = `${sortKey}:${sortDir}`;
  menu.value = [...menu.options].some((o) => o.value === value) ? value : 'column';
}

function sortBy(key: SortKey, dir: Dir): void {
  sortKey = key;
  sortDir = dir;
  updateSortHeaders();
  resort();
}

function refilter(): void {
  for (const r of rows.values()) r.tr.hidden = !matches(r.sub);
  onSelectionChange(); // also refreshes the "n of m shown" count
}

/** The view buttons' counts: "Never read (4)", "Paid services (2)". */
function updateViewCounts(): void {
  for (const b of document.querySelectorAll<HTMLElement>('[data-view-count]')) {
    const test = VIEWS[b.dataset.viewCount as View];
    let n = 0;
    for (const r of rows.values()) if (test(r.sub)) n++;
    b.textContent = `(${num(n)})`;
  }
}

export function initTable(selectionChanged: () => void): void {
  onSelectionChange = selectionChanged;
  for (const th of document.querySelectorAll<HTMLTableCellElement>('#subs th[data-sort]')) {
    th.querySelector('button')?.addEventListener('click', () => {
      const key = th.dataset.sort as SortKey;
      if (key === sortKey) sortBy(key, sortDir === 'ascending' ? 'descending' : 'ascending');
      else sortBy(key, key === 'sender' || key === 'service' ? 'ascending' : 'descending');
    });
  }
  byId<HTMLSelectElement>('sort-by').addEventListener('change', (ev) => {
    const [key, dir] = (ev.target as HTMLSelectElement).value.split(':');
    if (dir) sortBy(key as SortKey, dir as Dir);
  });
  byId<HTMLInputElement>('filter').addEventListener('input', (ev) => {
    filterText = (ev.target as HTMLInputElement).value.trim().toLowerCase();
    refilter();
  });
  for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="view"]')) {
    radio.addEventListener('change', () => {
      if (!radio.checked) return;
      view = radio.value as View;
      refilter();
    });
  }
  tbody().addEventListener('change', () => onSelectionChange());
}

export function upsert(sub: Subscription): void {
  const row = rows.get(sub.id);
  if (row) updateRow(row, sub);
  else {
    const created = createRow(sub);
    created.tr.hidden = !matches(sub);
    rows.set(sub.id, created);
    tbody().append(created.tr);
  }
  queueSort();
}

export function clearTable(): void {
  rows.clear();
  setSpend(new Map());
  tbody().replaceChildren();
  updateViewCounts();
}

export const allRows = () => rows.values();

/** Redraws every row from its subscription (after what a row shows beside it changed). */
export function redrawRows(): void {
  for (const r of rows.values()) updateRow(r, r.sub);
}

export const rowById = (id: string) => rows.get(id);
export const rowCount = () => rows.size;

export function select(which: 'all' | 'none' | 'rarely'): void {
  for (const r of rows.values()) {
    if (which === 'none') r.select.checked = false;
    else if (!r.tr.hidden) r.select.checked = which === 'all' || isRarelyRead(r.sub);
  }
  onSelectionChange();
}

export function selected(): Row[] {
  return [...rows.values()].filter((r) => r.select.checked);
}

/** Selected flagged rows whose "include anyway" box is ticked. */
export function includedFlagged(): string[] {
  return selected()
    .filter((r) => isFlagged(r.sub) && r.include.checked)
    .map((r) => r.sub.id);
}

export function countText(): string {
  const visible = [...rows.values()].filter((r) => !r.tr.hidden).length;
  const total = rows.size;
  return visible === total ? `${num(total)} found` : `${num(visible)} of ${num(total)} shown`;
}
