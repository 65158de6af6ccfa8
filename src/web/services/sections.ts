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
  verdict,
} from './labels.ts';
import { factState } from './provenance.ts';
import { publicText } from './public-text.ts';
import { radarSvg } from './radar.ts';

export function trapsSection(r: ServiceRecord): SafeHtml {
  if (!r.traps.length) return html``;
  return html`<section class="block" aria-labelledby="traps-title"><h2 id="traps-title">Watch out for</h2>
<ul class="traps">${r.traps.map(
    (
      t,
    ) => html`<li class="trap" id="trap-${t.id}"><p><span class="badge sev-${t.severity}">${SEVERITY_LABEL[t.severity]} risk</span> ${t.summary}</p>
${t.how_to_avoid ? html`<p class="avoid"><strong>How to avoid it:</strong> ${t.how_to_avoid}</p>` : ''}${factState(r, t.source_ids)}</li>`,
  )}</ul></section>`;
}

interface Fact {
  label: string;
  /** null when the record does not know it: the row is left out and named once in `unknownLine` */
  value: SafeHtml | string | null;
  /** how the fact is named in the one sentence listing what is unknown */
  unknown: string;
  source_ids: string[];
}

function facts(r: ServiceRecord): Fact[] {
  const t = r.timing;
  const c = r.cost;
  const terms = [
    t.commitment && `minimum term ${duration(t.commitment)}`,
    t.notice_period && `notice period ${duration(t.notice_period)}`,
    t.cutoff && `cancel at least ${duration(t.cutoff)} before the next charge`,
  ].filter(Boolean);
  return [
    {
      label: 'Ways to cancel',
      value: html`<ul>${r.cancel.channels.map((ch) => {
        const note = publicText(ch.note);
        return html`<li>${CHANNEL_LABEL[ch.type] ?? ch.type}${note ? html` <span class="muted">(${note})</span>` : ''}</li>`;
      })}</ul>`,
      unknown: 'the ways to cancel',
      source_ids: [...new Set(r.cancel.channels.flatMap((ch) => ch.source_ids))],
    },
    {
      label: 'Who may bill you',
      value: r.cancel.billing_routes.map((b) => en.route(b, r.name)).join(', '),
      unknown: 'who may bill you',
      source_ids: r.cancel.source_ids,
    },
    {
      label: 'You will need',
      value: r.verification.requires ? r.verification.requires.map((v) => REQUIREMENT_LABEL[v] ?? v).join(', ') : null,
      unknown: 'what you need to prove who you are',
      source_ids: r.verification.source_ids,
    },
    {
      label: 'Contract terms',
      value: t.known ? (terms.length ? terms.join('; ') : 'month to month, no notice period') : null,
      unknown: 'the contract terms',
      source_ids: t.source_ids,
    },
    {
      label: 'Save offers',
      value: r.retention.level ? en.neutral.retention[r.retention.level] : null,
      unknown: 'whether save offers come first',
      source_ids: r.retention.source_ids,
    },
    {
      label: 'Fees',
      value: c.known
        ? c.fees.length
          ? html`<ul>${c.fees.map((f) => html`<li>${f.description}</li>`)}</ul>`
          : 'none known'
        : null,
      unknown: 'fees',
      source_ids: c.fees.length ? [...new Set(c.fees.flatMap((f) => f.source_ids))] : c.source_ids,
    },
    {
      label: 'Refund',
      value: c.refund
        ? `${REFUND_LABEL[c.refund]}${c.refund_window_days ? ` (${c.refund_window_days} days)` : ''}`
        : null,
      unknown: 'refunds',
      source_ids: c.source_ids,
    },
    {
      label: 'Confirmation',
      value: r.cancel.confirmation ? en.neutral.confirmation[r.cancel.confirmation] : null,
      unknown: 'how the cancellation is confirmed',
      source_ids: r.cancel.source_ids,
    },
    {
      label: 'After cancelling',
      value: r.cancel.access_after_cancel ? en.neutral.access[r.cancel.access_after_cancel] : null,
      unknown: 'when access ends',
      source_ids: r.cancel.source_ids,
    },
  ];
}

const priced = (r: ServiceRecord) => r.plans.filter((p) => p.price);

/** What the record does not know, named once: facts left out of "At a glance", and prices. */
export function unknownFacts(r: ServiceRecord): string[] {
  const unknown = facts(r)
    .filter((f) => f.value === null)
    .map((f) => f.unknown);
  const unpriced = r.plans.filter((p) => !p.price);
  if (unpriced.length)
    unknown.push(
      unpriced.length === r.plans.length
        ? 'prices'
        : `the price of ${unpriced
            .map((p) => p.name)
            .join(', ')
            .replace(/, ([^,]*)$/, ' and $1')}`,
    );
  return unknown;
}

const sentenceList = (items: string[]) =>
  items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

export function factsSection(r: ServiceRecord): SafeHtml {
  const known = facts(r).filter((f) => f.value !== null);
  const unknown = unknownFacts(r);
  return html`<section class="block" aria-labelledby="facts-title"><h2 id="facts-title">At a glance</h2>
<dl class="facts">${known.map((f) => html`<div><dt>${f.label}</dt><dd>${f.value}${factState(r, f.source_ids)}</dd></div>`)}</dl>
${unknown.length ? html`<p class="unknown" id="unknown">Unknown: ${sentenceList(unknown)}. No source we have establishes them, and this page does not guess.</p>` : ''}</section>`;
}

export function frictionSection(e: CatalogEntry): SafeHtml {
  const f = e.friction;
  const v = verdict(f.difficulty);
  return html`<section class="block" aria-labelledby="friction-title"><h2 id="friction-title">How hard it is to leave</h2>
<p>Six axes, each scored from 0 (no friction) to 10 (worst) by a <a href="/docs">published rubric</a> from the facts on this page. The overall difficulty is <strong>${v.score} out of 10</strong>, which the rubric calls <strong>${v.label.toLowerCase()}</strong>${f.axes[f.driver] > 0 ? html`, set mostly by <strong>${axisMeaning(f.driver)}</strong>` : ''}.</p>
<div class="friction">
<figure class="radar-figure">${radarSvg(e.record.name, f.axes)}<figcaption class="muted">Further from the centre means harder.</figcaption></figure>
<table class="scores"><caption>Friction scores of ${e.record.name}</caption>
<thead><tr><th scope="col">Axis</th><th scope="col">Score</th><th scope="col">Why</th></tr></thead>
<tbody>${AXES.map((a) => {
    const d = f.details.find((x) => x.axis === a);
    return html`<tr${a === f.driver ? html` class="driver"` : ''}><th scope="row">${AXIS_LABEL[a]}<span class="axis-meaning">${axisMeaning(a)}</span></th><td class="num">${f.axes[a]}<span class="muted">/10</span></td><td>${d?.explanation || '—'}</td></tr>`;
  })}</tbody></table></div></section>`;
}

const BILLED: Record<string, string> = {
  P1W: 'billed weekly',
  P1M: 'billed monthly',
  P3M: 'billed quarterly',
  P1Y: 'billed yearly',
  P12M: 'billed yearly',
};

/**
 * Plans: a table row only for a plan with a price read on an official page; the plans without
 * one are named in a sentence (their missing prices are in the "not known" line above).
 */
export function plansSection(r: ServiceRecord): SafeHtml {
  const rows = priced(r);
  const rest = r.plans.filter((p) => !p.price);
  const period = (p: ServiceRecord['plans'][number]) =>
    `${BILLED[p.billing_period] ?? `billed every ${duration(p.billing_period)}`}${p.commitment ? `, minimum term ${duration(p.commitment)}` : ''}`;
  return html`<section class="block" aria-labelledby="plans-title"><h2 id="plans-title">Plans</h2>
${
  rows.length
    ? html`<table class="plans stack"><thead><tr><th scope="col">Plan</th><th scope="col">Price</th><th scope="col">Billed every</th><th scope="col">Minimum term</th></tr></thead>
<tbody>${rows.map(
        (p) =>
          html`<tr><th scope="row">${p.name}</th><td data-label="Price">${priceText(p)}${p.price ? html` <span class="muted">(read ${p.price.as_of}${isStalePrice(p.price.as_of, new Date()) ? html`, <strong>older than 12 months</strong>` : ''}, <a href="#source-${p.price.source_id}">source</a>)</span>` : ''}</td><td data-label="Billed every">${duration(p.billing_period)}</td><td data-label="Minimum term">${p.commitment ? duration(p.commitment) : 'none'}</td></tr>`,
      )}</tbody></table>
<p class="muted small">Prices change often and differ by country; each is shown with the day it was read.</p>`
    : ''
}
${
  rest.length
    ? html`<p>${rows.length ? 'Also offered' : 'Offered'}: ${rest.map((p, i) => html`${i ? '; ' : ''}<strong>${p.name}</strong> <span class="muted">(${period(p)})</span>`)}.${rows.length ? '' : ' No price was stated on a page we read.'}</p>`
    : ''
}</section>`;
}
