/**
 * `/`: the inbox tool. The form and every explanation are server-rendered; the scan
 * itself (progress, results table, unsubscribing) is driven by tool.js over /ws, so those
 * regions are in the page but hidden until the script shows them.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import { html, renderPage, type SafeHtml } from '../html.ts';
import { scanForm } from './scan-form.ts';

const COLUMNS: [key: string | null, label: string, className: string][] = [
  ['sender', 'Sender', 'col-sender'],
  ['count', 'Emails', 'num'],
  ['per_month', 'Per month', 'num'],
  ['read_rate', 'Read', 'num'],
  ['last_seen', 'First – last seen', ''],
  [null, 'Unsubscribe by', ''],
  ['service', 'Service', ''],
  [null, 'Status', 'col-status'],
];

function results(): SafeHtml {
  return html`<section id="results" class="results" hidden aria-labelledby="results-title">
<div class="results-head"><h2 id="results-title">Subscriptions</h2><p id="results-count" class="muted"></p></div>
<div class="toolbar">
<div class="field"><label for="filter">Filter</label><input id="filter" type="search" placeholder="Name, address or service" autocomplete="off"></div>
<div class="field sort-field"><label for="sort-by">Sort by</label><select id="sort-by">
<option value="count:descending">Most emails</option>
<option value="per_month:descending">Most frequent</option>
<option value="read_rate:ascending">Least read</option>
<option value="last_seen:descending">Most recent</option>
<option value="sender:ascending">Sender, A–Z</option>
<option value="service:ascending">Paid service, A–Z</option>
<option value="column" hidden disabled>By a column</option></select></div>
<fieldset class="views"><legend>Show</legend>
<label class="view"><input type="radio" name="view" value="all" checked> All</label>
<label class="view"><input type="radio" name="view" value="never_read"> Never read <span data-view-count="never_read"></span></label>
<label class="view"><input type="radio" name="view" value="paid"> Paid services <span data-view-count="paid"></span></label></fieldset>
<div class="select-buttons" role="group" aria-labelledby="select-label"><span id="select-label">Select</span>
<button type="button" class="button secondary small" data-select="all">All</button>
<button type="button" class="button secondary small" data-select="none">None</button>
<button type="button" class="button secondary small" data-select="rarely">Rarely read</button></div></div>
<p class="small muted">“Never read”: you opened none of its emails. “Paid services”: senders that belong to a service in <a href="/services">our cancellation guides</a>. “Rarely read”: you opened fewer than 1 in 5 of at least 3 emails. Rows marked <span class="badge warn">Check first</span> may be spam or forged; they are only acted on if you tick “include anyway”.</p>
<div class="action-bar"><p id="selected-count" class="selected-count">0 selected</p>
<label class="check"><input type="checkbox" id="archive"> Also archive their past mail</label>
<div class="buttons"><button type="button" class="button secondary" id="preview">Preview (dry run)</button>
<button type="button" class="button" id="unsubscribe">Unsubscribe selected</button></div></div>
<div id="summary" class="summary-box" hidden tabindex="-1"></div>
<div class="table-wrap"><table id="subs" class="subs"><caption class="visually-hidden">Subscriptions found in your mailbox; the column buttons sort the table.</caption>
<thead><tr><th scope="col" class="col-select"><span class="visually-hidden">Select</span></th>${COLUMNS.map(
    ([key, label]) =>
      key
        ? html`<th scope="col" data-sort="${key}"${key === 'count' ? html` aria-sort="descending"` : ''}><button type="button" class="sort">${label}<span class="sort-icon" aria-hidden="true"></span></button></th>`
        : html`<th scope="col">${label}</th>`,
  )}</tr></thead>
<tbody id="subs-body"></tbody></table></div>
</section>`;
}

const AUDIT = html`<section id="audit" class="audit card" hidden aria-labelledby="audit-title">
<h2 id="audit-title">What your subscriptions cost</h2>
<p>We look for receipts, invoices and renewal notices from the services in our catalog in the mail this scan read, and add up what they charge, per currency. Only those few emails are opened, and nothing of them is kept. Offers and discounts in them are not counted.</p>
<button type="button" class="button" id="audit-button">Audit spend and frequency</button>
<p id="audit-progress" class="small" role="status" hidden></p>
<div id="audit-result" class="audit-result" tabindex="-1" hidden></div>
</section>`;

const HOW = html`<section class="how" aria-labelledby="how-title"><h2 id="how-title">How it works</h2>
<ol class="how-steps">
<li><h3>Scan</h3><p>We read only the headers of your mail over a secure IMAP connection, and find every sender that offers an unsubscribe (RFC 2369 <code>List-Unsubscribe</code>).</p></li>
<li><h3>Choose</h3><p>See how often each list mails you and how much of it you actually read. Pick them one by one, or every list you rarely open.</p></li>
<li><h3>Unsubscribe</h3><p>We use the sender’s one-click unsubscribe (RFC 8058) or send the unsubscribe email from your address. Anything that needs a web page is handed to you to open.</p></li>
<li><h3>See what you pay</h3><p>If you like, we read the receipts of the paid services in our catalog from the same mail and show what each costs a month, per currency, with how hard it is to cancel.</p></li>
</ol>
<p>Your password, your senders and your subjects are never stored: they stay in our server’s memory for the session, then they are wiped. The one thing kept is a keyed hash of your address with today’s scan count, for the daily limit, deleted when the day ends (<a href="/privacy">what is kept, exactly</a>). Your browser remembers which lists you left (only their list identifiers and dates), so the next scan can tell whether they really stopped. <a href="/blog/how-to-unsubscribe-all-emails/">Read how unsubscribing works</a>.</p>
</section>`;

const GUIDES = html`<section class="guides-teaser card" aria-labelledby="guides-title"><h2 id="guides-title">Paying for something you want to stop?</h2>
<p>Step-by-step cancellation guides for hundreds of services, with the traps to avoid and how hard each one makes it to leave.</p>
<form class="inline-search" role="search" action="/services" method="get"><label for="service-q" class="visually-hidden">Service name</label>
<input id="service-q" name="q" type="search" placeholder="e.g. Netflix, Adobe, gym" autocomplete="off"><button class="button secondary" type="submit">Find a guide</button></form></section>`;

function homePage(config: Config): string {
  const url = `${config.baseUrl}/`;
  return renderPage({
    title: 'optout · unsubscribe from the mail you never read',
    description:
      'Scan your mailbox for newsletters and mailing lists, see what you actually read, and unsubscribe from many at once. Your password is never stored.',
    canonical: url,
    og: { type: 'website', url },
    scripts: ['tool.js'],
    section: 'tool',
    body: html`<section class="hero"><h1>Unsubscribe from the mail you never read</h1>
<p class="lead">optout looks through your mailbox for a moment, lists every newsletter and mailing list with how often it writes and how much of it you read, and unsubscribes you from the ones you pick.</p></section>
${scanForm(Boolean(config.oauth.clientId))}
<section id="scan" class="scan card" hidden aria-labelledby="scan-title">
<h2 id="scan-title">Scan progress</h2>
<progress id="progress" aria-labelledby="scan-title" aria-describedby="progress-label"></progress>
<p id="progress-label" class="small"></p>
<p id="session-note" class="small muted"></p></section>
<div id="status" class="status" role="status" aria-live="polite"></div>
<p id="notice" class="note" role="status" hidden></p>
<div id="error" class="error" role="alert" hidden></div>
${results()}
${AUDIT}
${HOW}
${GUIDES}`,
  });
}

export function toolRoutes(app: FastifyInstance, config: Config) {
  const body = homePage(config);
  app.get('/', { schema: { hide: true } }, (_req, reply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'public, max-age=300').send(body),
  );
}
