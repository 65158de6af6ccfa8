/**
 * The evidence sections of a service page: which source each step rests on (its link, whether
 * it was read and when), every link with its latest check, the exits besides the web (phone,
 * letter, chat) and the consumer rights of the record's region. Only what the record, the
 * rights file and the link checker say; nothing is inferred.
 */
import type { z } from 'zod';
import type { LinkCheck } from '../../catalog/api-schemas.ts';
import type { CatalogEntry } from '../../catalog/load.ts';
import type { Contact, ServiceRecord } from '../../catalog/record.schema.ts';
import type { Rights } from '../../catalog/rights.ts';
import { type ServiceState, serviceLinks } from '../../catalog/view.ts';
import { html, type SafeHtml } from '../html.ts';
import { formatDateTime, linkCheckText } from '../shared/words.ts';
import { SOURCE_KIND_LABEL } from './labels.ts';
import { factState, readText, sourceLink } from './provenance.ts';
import { publicText } from './public-text.ts';

type Check = { outcome: string; http_status: number | null; checked_at: string } | null | undefined;

export const checkText = linkCheckText;

const checkBadge = (check: Check) =>
  html`<span class="linkcheck-result ${check ? `lc-${check.outcome}` : 'lc-none'}">${checkText(check)}</span>`;

/**
 * The numbered list every "[n]" on the page points at: each source with its publisher, kind and
 * whether (and when) it was read. Why a source was not read is the editors' business (`via`,
 * docs/catalog.md) and is not shown; a link's check is shown once it has run.
 */
export function sourcesSection(r: ServiceRecord, state: ServiceState | undefined): SafeHtml {
  const confirmed = r.sources.filter((s) => s.confirmed).length;
  return html`<section class="block" aria-labelledby="sources-title"><h2 id="sources-title">Sources</h2>
<p>${confirmed} of ${r.sources.length} source${r.sources.length === 1 ? '' : 's'} confirmed: a confirmed source is a page we read and found to state the facts that cite it.</p>
<ol class="sources">${r.sources.map((s) => {
    const check = s.url ? state?.links[s.url] : undefined;
    return html`<li id="source-${s.id}">${sourceLink(s)}
<span class="muted">· ${s.publisher} · ${SOURCE_KIND_LABEL[s.kind] ?? s.kind} ·</span> <span class="${s.confirmed ? 'read' : 'unread'}">${s.confirmed ? `Confirmed, ${readText(s)}` : s.read_at ? `Unconfirmed, ${readText(s)}` : 'Unconfirmed, not read'}</span>
${check ? html`<span class="small">· Link ${checkBadge(check)}</span>` : ''}</li>`;
  })}</ol></section>`;
}

const ROLE_LABEL: Record<string, string> = {
  cancel: 'cancel page',
  help: 'help article',
  website: 'website',
  step: 'a step',
  contact: 'contact',
  source: 'a source',
};

/**
 * Every link of the record with its latest check. A link never checked offers "Check this link"
 * (service.js: it queues the record's check and fills in each result when it is done).
 */
export function linksSection(e: CatalogEntry, state: ServiceState | undefined, scheduled: boolean): SafeHtml {
  const links = serviceLinks(e, state);
  return html`<section class="block" aria-labelledby="links-title"><h2 id="links-title">Links and their checks</h2>
<p class="small muted">${scheduled ? 'Every link on this page is checked on a schedule (weekly unless this installation says otherwise); a link that stops working shows here. ' : ''}A link not checked yet can be checked now.</p>
<table class="links stack" data-slug="${e.record.slug}"><thead><tr><th scope="col">Link</th><th scope="col">Used for</th><th scope="col">Latest check</th><th scope="col">Last reached</th></tr></thead>
<tbody>${links.map((l) => {
    const c: z.infer<typeof LinkCheck> | null = l.check;
    return html`<tr><td data-label="Link"><a class="link-url" href="${l.url}" rel="noopener noreferrer">${shortUrl(l.url)}</a></td><td data-label="Used for">${l.roles.map((x) => ROLE_LABEL[x] ?? x).join(', ')}</td><td class="lc-cell" data-label="Latest check" data-url="${l.url}" data-checked-at="${c?.checked_at ?? ''}">${checkBadge(c)}${c ? '' : html` <button type="button" class="button secondary small check-link" hidden>Check this link</button>`}</td><td data-label="Last reached" class="lc-reached">${c?.last_reached_at ? formatDateTime(c.last_reached_at) : html`<span class="muted">—</span>`}</td></tr>`;
  })}</tbody></table></section>`;
}

const shortUrl = (url: string) => {
  const u = new URL(url);
  return `${u.hostname.replace(/^www\./, '')}${u.pathname === '/' ? '' : u.pathname}`;
};

function contactItem(r: ServiceRecord, c: Contact): SafeHtml {
  const body =
    c.type === 'phone'
      ? html`<p><strong>By phone:</strong> <a href="tel:${c.phone?.replace(/[^\d+]/g, '')}">${c.phone}</a>${c.hours ? html` <span class="muted">(${c.hours})</span>` : html` <span class="muted">(opening hours not stated on the page read)</span>`}</p>`
      : c.type === 'postal_mail'
        ? html`<p><strong>By letter to:</strong></p><address>${c.address?.map((line, i) => html`${i ? html`<br>` : ''}${line}`)}</address>`
        : html`<p><strong>By chat:</strong> ${c.url ? html`<a href="${c.url}" rel="noopener noreferrer">${shortUrl(c.url)}</a>` : ''}</p>`;
  return html`<li class="exit exit-${c.type}">${body}${c.audience ? html`<p class="small">For ${c.audience}.</p>` : ''}${publicText(c.note) ? html`<p class="small">${publicText(c.note)}</p>` : ''}${factState(r, c.source_ids)}</li>`;
}

/** Phone lines, postal addresses and chats from the official pages read; nothing when there are none. */
export function exitsSection(r: ServiceRecord): SafeHtml {
  const contacts = r.cancel.contacts ?? [];
  if (!contacts.length) return html``;
  return html`<section class="block" aria-labelledby="exits-title"><h2 id="exits-title">Other ways to cancel</h2>
<p class="small muted">Only as ${r.name}’s own pages give them, with the day we read them. Numbers found elsewhere online are often not the company’s.</p>
<ul class="exits">${contacts.map((c) => contactItem(r, c))}</ul></section>`;
}

const TOPIC_TITLE: Record<string, string> = {
  law: 'What the law gives you',
  when_refused: 'If the company refuses',
  card_dispute: 'Disputing the charge with your card issuer',
  complaint: 'Where to complain',
};

/** The consumer rights of the record's region, each statement with its sources; nothing for a region without a file. */
export function rightsSection(rights: Rights | undefined): SafeHtml {
  if (!rights) return html``;
  const topics = Object.keys(TOPIC_TITLE).filter((t) => rights.statements.some((s) => s.topic === t));
  const source = (id: string) => rights.sources.find((s) => s.id === id);
  return html`<section class="block rights" aria-labelledby="rights-title"><h2 id="rights-title">Your rights in ${rights.name}</h2>
<p class="small muted">From the statutes, public bodies and consumer organisations cited, as read on the day shown. This is information, not legal advice.</p>
${topics.map(
  (t) =>
    html`<h3>${TOPIC_TITLE[t]}</h3><ul class="rights-list">${rights.statements
      .filter((s) => s.topic === t)
      .map(
        (s) =>
          html`<li class="right" id="right-${s.id}"><p>${s.text}</p><p class="small muted">${s.source_ids.map(
            (id, i) => {
              const src = source(id);
              if (!src) return html``;
              return html`${i ? ' · ' : ''}${sourceLink(src)} (${src.publisher}, ${readText(src)})`;
            },
          )}</p></li>`,
      )}</ul>`,
)}</section>`;
}
