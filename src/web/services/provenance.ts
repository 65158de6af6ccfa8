/**
 * Where a fact on a service page comes from, said next to the fact: "Confirmed by <page>, read
 * 26 November 2026" when a source it cites was read and states it, or "Unconfirmed" with the
 * page it points to when none was. A fact is confirmed when at least one cited source is
 * (docs/catalog.md, "Honesty rules": a confirmed source is a page that was read and states the
 * facts citing it), so a confirmed fact names only its confirmed sources.
 */
import type { ServiceRecord, Source } from '../../catalog/record.schema.ts';
import { formatDate } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';

export function sourceLink(s: Source): SafeHtml {
  const name = s.title ?? s.publisher;
  return s.url ? html`<a href="${s.url}" rel="noopener noreferrer">${name}</a>` : html`${name}`;
}

/** "read 26 November 2026" or "not read". */
export const readText = (s: Source) => (s.read_at ? `read ${formatDate(s.read_at)}` : 'not read');

export const cited = (r: ServiceRecord, ids: readonly string[] | undefined): Source[] =>
  (ids ?? []).map((id) => r.sources.find((s) => s.id === id)).filter((s): s is Source => !!s);

/** true when the fact citing `ids` rests on at least one confirmed source. */
export const isConfirmed = (r: ServiceRecord, ids: readonly string[] | undefined) =>
  cited(r, ids).some((s) => s.confirmed);

const number = (r: ServiceRecord, s: Source) =>
  html`<a class="source-no" href="#source-${s.id}" aria-label="source ${r.sources.indexOf(s) + 1}">[${r.sources.indexOf(s) + 1}]</a>`;

const publisherOf = (s: Source) =>
  s.title && s.publisher !== s.title ? html` <span class="muted">(${s.publisher})</span>` : '';

/**
 * The state of one fact: its cited sources, confirmed ones with the day they were read. Nothing
 * when the fact cites no source (the schema requires one for every fact block, step and trap).
 */
export function factState(r: ServiceRecord, ids: readonly string[] | undefined): SafeHtml {
  const all = cited(r, ids);
  if (!all.length) return html``;
  const confirmed = all.filter((s) => s.confirmed);
  if (confirmed.length) {
    return html`<p class="fact-state ok"><span class="state">Confirmed</span> by ${confirmed.map(
      (s, i) => html`${i ? '; ' : ''}${sourceLink(s)}${publisherOf(s)}, ${readText(s)} ${number(r, s)}`,
    )}</p>`;
  }
  // An unconfirmed source may still have been read (another market's edition of the page, a
  // third-party pointer): it then says so, without counting as confirmation.
  return html`<p class="fact-state pending"><span class="state">Unconfirmed</span>: rests on ${all.map(
    (s, i) =>
      html`${i ? '; ' : ''}${sourceLink(s)}${publisherOf(s)}, ${s.read_at ? `${readText(s)}, not counted as confirmation` : 'not read'} ${number(r, s)}`,
  )}</p>`;
}
