/**
 * /services/{slug}: how to cancel one service. Works without scripts (the record's steps,
 * the current link status); service.js adds the tone selector (POST /api/v1/guide) and
 * the re-check button (POST /api/v1/link-check, then polling the record).
 */
import type { Catalog, CatalogEntry } from '../../catalog/load.ts';
import type { ServiceState } from '../../catalog/view.ts';
import type { Config } from '../../config.ts';
import { writeGuide } from '../../guidance/guide/template-writer.ts';
import { formatDateTime } from '../format.ts';
import { html, renderPage, type SafeHtml } from '../html.ts';
import { linkStatusLine } from '../shared/words.ts';
import { exitsSection, linksSection, rightsSection, sourcesSection } from './evidence.ts';
import { axisMeaning, categoryName, verdict, verdictBadge } from './labels.ts';
import { factState } from './provenance.ts';
import { publicText } from './public-text.ts';
import { factsSection, frictionSection, plansSection, trapsSection } from './sections.ts';

export function linkStatusText(state: ServiceState | undefined): string {
  const s = state?.link_status;
  if (!s) return 'This link has not been checked yet.';
  return linkStatusLine(s);
}

function summary(e: CatalogEntry, state: ServiceState | undefined): SafeHtml {
  const r = e.record;
  const f = e.friction;
  const primary = r.cancel.url ?? r.cancel.help_url;
  return html`<section class="summary" aria-label="Summary">
<div class="verdict"><p class="verdict-label muted">How hard it is to leave</p>${verdictBadge(f.difficulty)}
${f.axes[f.driver] > 0 ? html`<p class="muted">Main hurdle: ${axisMeaning(f.driver)}</p>` : ''}</div>
<div class="actions">
${primary ? html`<a class="button" href="${primary}" rel="noopener noreferrer">${r.cancel.url ? `Open ${r.name}’s cancel page` : `Open ${r.name}’s help article`}</a>` : html`<p>No cancel page is known; follow the steps below.</p>`}
${r.cancel.url && r.cancel.help_url ? html`<a class="button secondary" href="${r.cancel.help_url}" rel="noopener noreferrer">Official help article</a>` : ''}
<div class="linkcheck" data-slug="${r.slug}" data-checked-at="${state?.link_status?.checked_at ?? ''}">
<p id="link-status" class="small" role="status">${linkStatusText(state)}</p>
${state?.last_verified ? html`<p class="small muted">Last reached and verified ${formatDateTime(state.last_verified)}.</p>` : ''}
<button type="button" class="button secondary small" id="recheck" hidden>${state?.link_status ? 'Re-check this link' : 'Check this link'}</button>
</div></div></section>`;
}

function stepsSection(e: CatalogEntry): SafeHtml {
  const r = e.record;
  const explanation = writeGuide(r, e.friction, { tone: 'neutral' }).explanation;
  return html`<section class="block guide" aria-labelledby="steps-title">
<div class="guide-head"><h2 id="steps-title">How to cancel</h2>
<fieldset class="tone" id="tone" hidden><legend>Tone of the guide</legend>
${(['neutral', 'reassuring', 'terse'] as const).map(
  (t) =>
    html`<label><input type="radio" name="tone" value="${t}"${t === 'neutral' ? ' checked' : ''}> ${t[0]!.toUpperCase()}${t.slice(1)}</label>`,
)}</fieldset></div>
<div id="guide" data-slug="${r.slug}">
<p class="explanation" id="guide-explanation">${explanation}</p>
<ol class="steps" id="guide-steps">${r.steps.map(
    (s) => html`<li><p class="step-title">${s.title}</p>${s.detail ? html`<p>${s.detail}</p>` : ''}
${s.url ? html`<p><a href="${s.url}" rel="noopener noreferrer">${new URL(s.url).hostname}${new URL(s.url).pathname === '/' ? '' : new URL(s.url).pathname}</a></p>` : ''}
${s.trap_ids?.length ? html`<p class="step-trap">Watch out: ${s.trap_ids.map((id, i) => html`${i ? ', ' : ''}<a href="#trap-${id}">${r.traps.find((t) => t.id === id)?.type.replaceAll('_', ' ') ?? id}</a>`)}</p>` : ''}${factState(r, s.source_ids)}</li>`,
  )}</ol>
<p id="guide-status" class="small muted" role="status"></p></div></section>`;
}

export function servicePage(
  config: Config,
  catalog: Catalog,
  e: CatalogEntry,
  state: ServiceState | undefined,
): string {
  const r = e.record;
  const url = `${config.baseUrl}/services/${r.slug}`;
  const cat = categoryName(catalog.categories, r.category);
  return renderPage({
    title: `How to cancel ${r.name} · optout`,
    description: `Step-by-step: cancel ${r.name}, the traps to avoid, and how hard it is to leave (${verdict(e.friction.difficulty).label.toLowerCase()}, ${verdict(e.friction.difficulty).score}/10).`,
    canonical: url,
    og: { type: 'website', url },
    scripts: ['service.js'],
    section: 'services',
    body: html`<nav class="crumbs" aria-label="Breadcrumb"><ol><li><a href="/services">Services</a></li><li><a href="/services?cat=${r.category}">${cat}</a></li><li><span aria-current="page">${r.name}</span></li></ol></nav>
<header class="page-head"><h1>How to cancel ${r.name}</h1>
<p class="lead">${cat} · facts for ${r.region === 'GLOBAL' ? 'all regions' : r.region} · <a href="${r.website}" rel="noopener noreferrer">${new URL(r.website).hostname}</a></p></header>
${summary(e, state)}
<div class="guide-layout">${stepsSection(e)}${trapsSection(r)}</div>
${exitsSection(r)}
${factsSection(r)}
${frictionSection(e)}
${plansSection(r)}
${publicText(r.notes) ? html`<section class="block" aria-labelledby="notes-title"><h2 id="notes-title">Good to know</h2><p>${publicText(r.notes)}</p></section>` : ''}
${rightsSection(catalog.rights.get(r.region))}
${sourcesSection(r, state)}
${linksSection(e, state, config.linkCheckSchedule !== null)}`,
  });
}
