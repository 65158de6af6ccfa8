/**
 * The fact sections of a service page: what to watch out for, the facts at a glance,
 * the friction chart and table, plans and sources. Each renders only from the record;
 * an unknown fact is said to be unknown, never guessed.
 */
import type { CatalogEntry } from '../../catalog/load.ts';
import type { ServiceRecord } from '../../catalog/record.schema.ts';
import { isStalePrice } from '../../catalog/report.ts';
import { AXES } from '../../catalog/vocabulary.ts';
import { en } from '../../guidance/guide/locales/en.ts';
import { html, type SafeHtml } from '../html.ts';
import {
  AXIS_LABEL,
  axisMeaning,
  CHANNEL_LABEL,
  duration,
  priceText,
  REFUND_LABEL,
  REQUIREMENT_LABEL,
  SEVERITY_LABEL,
} from './labels.ts';
import { radarSvg } from './radar.ts';

/** "Sources: 1, 2" — links to the numbered source list at the bottom of the page. */
export function refs(r: ServiceRecord, ids: string[] | undefined): SafeHtml {
  if (!ids?.length) return html``;
  const n = (id: string) => r.sources.findIndex((s) => s.id === id) + 1;
  return html`<span class="refs">Source${ids.length > 1 ? 's' : ''}: ${ids.map(
    (id, i) => html`${i ? ', ' : ''}<a href="#source-${id}">${n(id)}</a>`,
  )}</span>`;
}

export function trapsSection(r: ServiceRecord): SafeHtml {
  if (!r.traps.length) return html``;
  return html`<section class="block" aria-labelledby="traps-title"><h2 id="traps-title">Watch out for</h2>
<ul class="traps">${r.traps.map(
    (
      t,
    ) => html`<li class="trap" id="trap-${t.id}"><p><span class="badge sev-${t.severity}">${SEVERITY_LABEL[t.severity]} risk</span> ${t.summary}</p>
${t.how_to_avoid ? html`<p class="avoid"><strong>How to avoid it:</strong> ${t.how_to_avoid}</p>` : ''}${refs(r, t.source_ids)}</li>`,
  )}</ul></section>`;
}

const unknown = html`<span class="muted">unknown</span>`;

export function factsSection(r: ServiceRecord): SafeHtml {
  const t = r.timing;
  const c = r.cost;
  const terms = [
    t.commitment && `minimum term ${duration(t.commitment)}`,
    t.notice_period && `notice period ${duration(t.notice_period)}`,
    t.cutoff && `cancel at least ${duration(t.cutoff)} before the next charge`,
  ].filter(Boolean);
  const rows: [string, SafeHtml | string][] = [
    [
      'Ways to cancel',
      html`<ul>${r.cancel.channels.map((ch) => html`<li>${CHANNEL_LABEL[ch.type] ?? ch.type}${ch.note ? html` <span class="muted">(${ch.note})</span>` : ''}</li>`)}</ul>`,
    ],
    ['Who may bill you', r.cancel.billing_routes.map((b) => en.route(b, r.name)).join(', ')],
    [
      'You will need',
      r.verification.requires ? r.verification.requires.map((v) => REQUIREMENT_LABEL[v] ?? v).join(', ') : unknown,
    ],
    ['Contract terms', t.known ? (terms.length ? terms.join('; ') : 'month to month, no notice period') : unknown],
    ['Save offers', r.retention.level ? en.neutral.retention[r.retention.level] : unknown],
    [
      'Fees',
      c.known
        ? c.fees.length
          ? html`<ul>${c.fees.map((f) => html`<li>${f.description}</li>`)}</ul>`
          : 'none known'
        : unknown,
    ],
    [
      'Refund',
      c.refund ? `${REFUND_LABEL[c.refund]}${c.refund_window_days ? ` (${c.refund_window_days} days)` : ''}` : unknown,
    ],
    ['Confirmation', r.cancel.confirmation ? en.neutral.confirmation[r.cancel.confirmation] : unknown],
    ['After cancelling', r.cancel.access_after_cancel ? en.neutral.access[r.cancel.access_after_cancel] : unknown],
  ];
  return html`<section class="block" aria-labelledby="facts-title"><h2 id="facts-title">At a glance</h2>
<dl class="facts">${rows.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl></section>`;
}

export function frictionSection(e: CatalogEntry): SafeHtml {
  const f = e.friction;
  return html`<section class="block" aria-labelledby="friction-title"><h2 id="friction-title">How hard it is to leave</h2>
<p>Six axes, each scored from 0 (no friction) to 10 (worst) by a <a href="/docs">published rubric</a> from the facts on this page. The overall difficulty is <strong>${f.difficulty.toFixed(1)} out of 10</strong>${f.axes[f.driver] > 0 ? html`, set mostly by <strong>${axisMeaning(f.driver)}</strong>` : ''}.</p>
<div class="friction">
<figure class="radar-figure">${radarSvg(e.record.name, f.axes)}<figcaption class="muted">Further from the centre means harder.</figcaption></figure>
<table class="scores"><caption>Friction scores of ${e.record.name}</caption>
<thead><tr><th scope="col">Axis</th><th scope="col">Score</th><th scope="col">Why</th></tr></thead>
<tbody>${AXES.map((a) => {
    const d = f.details.find((x) => x.axis === a);
    return html`<tr${a === f.driver ? html` class="driver"` : ''}><th scope="row">${AXIS_LABEL[a]}<span class="axis-meaning">${axisMeaning(a)}</span></th><td class="num">${f.axes[a]}<span class="muted">/10</span></td><td>${d?.explanation || '—'}</td></tr>`;
  })}</tbody></table></div></section>`;
}

export function plansSection(r: ServiceRecord): SafeHtml {
  return html`<section class="block" aria-labelledby="plans-title"><h2 id="plans-title">Plans</h2>
<div class="table-scroll"><table class="plans"><thead><tr><th scope="col">Plan</th><th scope="col">Price</th><th scope="col">Billed every</th><th scope="col">Minimum term</th></tr></thead>
<tbody>${r.plans.map(
    (p) =>
      html`<tr><th scope="row">${p.name}</th><td>${priceText(p)}${p.price ? html` <span class="muted">(read ${p.price.as_of}${isStalePrice(p.price.as_of, new Date()) ? html`, <strong>older than 12 months</strong>` : ''}, <a href="#source-${p.price.source_id}">source</a>)</span>` : ''}</td><td>${duration(p.billing_period)}</td><td>${p.commitment ? duration(p.commitment) : 'none'}</td></tr>`,
  )}</tbody></table></div>
<p class="muted small">Prices change often and differ by country; “unknown” means we could not confirm one.</p></section>`;
}
