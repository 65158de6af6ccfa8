/**
 * /services: search (`q`) and browse by category (`cat`) over the catalog, on the server
 * with the same search as the API, paged with plain links.
 */
import type { Catalog, CatalogEntry } from '../../catalog/load.ts';
import type { Config } from '../../config.ts';
import { html, renderPage, type SafeHtml } from '../html.ts';
import { categoryName, verdictBadge } from './labels.ts';

export const PAGE_SIZE = 24;

export interface IndexQuery {
  q: string;
  cat: string | null;
  page: number;
}

function link(q: IndexQuery, page: number): string {
  const p = new URLSearchParams();
  if (q.q) p.set('q', q.q);
  if (q.cat) p.set('cat', q.cat);
  if (page > 1) p.set('page', String(page));
  const s = p.toString();
  return s ? `/services?${s}` : '/services';
}

function card(catalog: Catalog, e: CatalogEntry): SafeHtml {
  const f = e.friction;
  return html`<li class="service-card"><a href="/services/${e.record.slug}"><span class="service-name">${e.record.name}</span>
<span class="service-meta">${verdictBadge(f.difficulty)} <span class="muted">${categoryName(catalog.categories, e.record.category)}</span></span></a></li>`;
}

function pager(q: IndexQuery, pages: number): SafeHtml {
  if (pages <= 1) return html``;
  return html`<nav class="pager" aria-label="Result pages">
${q.page > 1 ? html`<a href="${link(q, q.page - 1)}" rel="prev">← Previous</a>` : html`<span></span>`}
<span>Page ${q.page} of ${pages}</span>
${q.page < pages ? html`<a href="${link(q, q.page + 1)}" rel="next">Next →</a>` : html`<span></span>`}</nav>`;
}

export function indexPage(config: Config, catalog: Catalog, q: IndexQuery, matches: CatalogEntry[]): string {
  const pages = Math.max(1, Math.ceil(matches.length / PAGE_SIZE));
  const slice = matches.slice((q.page - 1) * PAGE_SIZE, q.page * PAGE_SIZE);
  const counts = new Map<string, number>();
  for (const e of catalog.entries) counts.set(e.record.category, (counts.get(e.record.category) ?? 0) + 1);
  const catName = q.cat ? categoryName(catalog.categories, q.cat) : null;
  const heading = q.q
    ? `${matches.length} result${matches.length === 1 ? '' : 's'} for “${q.q}”${catName ? ` in ${catName}` : ''}`
    : catName
      ? `${catName}: ${matches.length} service${matches.length === 1 ? '' : 's'}`
      : `All ${matches.length} services`;
  return renderPage({
    title: q.q || catName ? `${heading} · optout` : 'How to cancel a subscription · optout',
    description: `Step-by-step cancellation guides for ${catalog.entries.length} services, with the traps to avoid and how hard each one is to leave.`,
    canonical: `${config.baseUrl}${link(q, q.page)}`,
    og: { type: 'website', url: `${config.baseUrl}${link(q, q.page)}` },
    section: 'services',
    body: html`<header class="page-head"><h1>How to cancel a subscription</h1>
<p class="lead">Step-by-step guides for ${catalog.entries.length} paid services: where to cancel, the traps to avoid, and how hard each one makes it to leave.</p></header>
<form class="search card" role="search" action="/services" method="get">
<div class="field grow"><label for="q">Service name or website</label><input id="q" name="q" type="search" value="${q.q}" maxlength="100" placeholder="e.g. Netflix, gym, adobe.com" autocomplete="off"></div>
<div class="field"><label for="cat">Category</label><select id="cat" name="cat"><option value="">All categories</option>${catalog.categories.map(
      (c) =>
        html`<option value="${c.slug}"${c.slug === q.cat ? ' selected' : ''}>${c.name} (${counts.get(c.slug) ?? 0})</option>`,
    )}</select></div>
<button class="button" type="submit">Search</button></form>
<section aria-labelledby="results-title"><h2 id="results-title" class="results-title">${heading}</h2>
${
  slice.length
    ? html`<ul class="service-grid">${slice.map((e) => card(catalog, e))}</ul>`
    : html`<p>No service matches. Try a shorter name, the website’s domain, or <a href="/services">browse all services</a>.</p>`
}
${pager(q, pages)}</section>
${
  !q.q && !q.cat
    ? html`<section aria-labelledby="cats-title"><h2 id="cats-title">Browse by category</h2><ul class="chips">${catalog.categories.map(
        (c) =>
          html`<li><a href="/services?cat=${c.slug}">${c.name} <span class="muted">${counts.get(c.slug) ?? 0}</span></a></li>`,
      )}</ul></section>`
    : ''
}`,
  });
}
