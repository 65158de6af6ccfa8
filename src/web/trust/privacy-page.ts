/**
 * /privacy: what optout processes, where and for how long; what it stores (STORED_TABLES, tied
 * to the real database by a test) and what it never stores. Rendered once at start from this
 * installation's configuration (trustFacts), so it describes the site that serves it.
 */
import { html, renderPage, type SafeHtml } from '../html.ts';
import { headerName, type TrustFacts } from './facts.ts';
import { STORED_TABLES } from './stored-data.ts';

const NEVER = [
  'your password or app password',
  'Microsoft sign-in tokens',
  'your mail: no message, header, subject or sender name',
  'the list of senders a scan found, or what you chose',
  'what happened to each unsubscribe request',
  'your email address in readable form',
];

function scanSection(f: TrustFacts): SafeHtml {
  return html`<section aria-labelledby="scan-h"><h2 id="scan-h">When you scan a mailbox</h2>
<p><strong>What is processed:</strong> your email address; your password or app password (or, with Microsoft sign-in, a token Microsoft issues); the name of your mail server; and, for each message, only these header fields — ${f.headerFields.map((h, i) => html`${i ? ', ' : ''}<code>${headerName(h)}</code>`)} — and whether you have read it. A scan never downloads message bodies or attachments, and marks nothing as read.</p>
<p><strong>If you ask for the spend audit</strong> after a scan, optout also reads the newest likely receipts from the catalog’s paid services (mail from those services’ own sending domains; at most 12 per service and 256 KiB per message, nothing from Junk or from senders that fail DKIM or DMARC) to find what each one charges. Those messages are read in memory and dropped; nothing of them is stored or logged, and they too stay unread in your mailbox.</p>
<p><strong>Where:</strong> in the memory of the optout server at ${f.host}, which connects to your mail server over TLS with a verified certificate. Results are sent to your browser over the same page’s connection.</p>
<p><strong>For how long:</strong> your sign-in and the results stay in the server’s memory for one session: at most ${f.sessionMinutes} minutes after you start, and ${f.keepMinutes} minutes after your page closes or loses its connection. Then they are wiped. A server restart wipes them too.</p>
<p><strong>The daily limit:</strong> to allow ${f.dailyLimit} scans per mailbox per day, the server stores a keyed hash of your address with today’s count (see <a href="#stored">what is stored</a>). Without the server’s secret key nobody can even check a guess against it, and the row is deleted when the day ends.</p>
</section>`;
}

function unsubscribeSection(): SafeHtml {
  return html`<section aria-labelledby="unsub-h"><h2 id="unsub-h">When you unsubscribe</h2>
<ul>
<li><strong>One-click requests</strong> (RFC 8058) go from the optout server to the address the sender put in its own <code>List-Unsubscribe</code> header. The sender sees the server’s IP address, not yours, and whatever that address already encodes (usually which list and which subscriber).</li>
<li><strong>Unsubscribe emails</strong> are sent from your address through your provider’s outgoing mail server, signed in as you, to the address the sender gave.</li>
<li><strong>Web pages</strong> a sender asks you to visit are never opened by optout: you get the link and decide.</li>
<li><strong>Archiving</strong>, if you tick it, moves those senders’ messages to your Archive folder on your mail server.</li>
</ul></section>`;
}

function microsoftSection(f: TrustFacts): SafeHtml {
  const state = f.microsoft
    ? html`<p>This site offers Microsoft sign-in for Outlook.com and Microsoft 365 mailboxes; you sign in at ${f.microsoft.issuer}, not here.</p>`
    : html`<p>This site has not set up Microsoft sign-in, so none of this applies here.</p>`;
  return html`<section aria-labelledby="ms-h"><h2 id="ms-h">Microsoft sign-in</h2>
${state}
<p>After you sign in, the tokens Microsoft issues are kept in the server’s memory only, for at most an hour, and are never written to the database, a file or a log. Two cookies are used: <code>optout_ms</code>, a random session number (one hour), and <code>optout_ms_flow</code>, a sealed cookie that carries the sign-in’s one-time checks for 10 minutes. Signing out forgets the tokens and asks Microsoft to revoke them where it can.</p>
</section>`;
}

function storedSection(): SafeHtml {
  return html`<section aria-labelledby="stored"><h2 id="stored">What is stored</h2>
<p>Everything optout keeps is in this site’s database, in these tables:</p>
<div class="trust-table"><table><caption class="visually-hidden">Every table in optout’s database</caption>
<thead><tr><th scope="col">Table</th><th scope="col">What it holds</th><th scope="col">About people</th><th scope="col">Kept</th></tr></thead>
<tbody>${STORED_TABLES.map(
    (t) =>
      html`<tr data-table="${t.name}"><th scope="row"><code>${t.name}</code></th><td>${t.what}</td><td>${t.personal ?? 'Nothing.'}</td><td>${t.kept}</td></tr>`,
  )}</tbody></table></div>
<h3 id="never">What is never stored</h3>
<ul>${NEVER.map((n) => html`<li>${n}</li>`)}</ul>
</section>`;
}

function elsewhereSection(f: TrustFacts): SafeHtml {
  return html`<section aria-labelledby="else-h"><h2 id="else-h">Your browser, the logs, and the rest of the site</h2>
<ul>
<li><strong>In your browser:</strong> the tool keeps the lists you left and when (their list identifiers and dates, nothing else) in this browser’s local storage under <code>optout.unsubscribes.v1</code>, so the next scan can tell whether they stopped. Clearing the site’s data removes it.</li>
<li><strong>Server logs:</strong> each request is logged with its time, method, route pattern (never the query), status and duration; a request that fails or is slow also logs its address (secret values blanked), the client’s IP address and the error code. Passwords, tokens and cookies are never logged, and a scan logs only how many messages and lists it counted. The logs go wherever the operator of ${f.host} sends the server’s output, for as long as they keep them.</li>
<li><strong>Cancellation guides:</strong> ${
    f.llm
      ? html`guides may be written by a language model at ${f.llm.endpoint}; it is sent the service’s catalog record and the tone and language you chose, never anything about you.`
      : html`guides are written on this server from the catalog; no language model is used here.`
  } Link checks fetch the services’ own cancellation pages.</li>
<li><strong>AI agents:</strong> an agent that registers with an email address makes this server send that address a confirmation email${
    f.smtp
      ? html` through the operator’s mail server`
      : html`; this site has no outgoing mail server configured, so the email is written as a file on the server for the operator to deliver`
  }. Only hashes are stored (see the table).</li>
</ul></section>`;
}

export function privacyPage(f: TrustFacts): string {
  return renderPage({
    title: 'Privacy · optout',
    description:
      'What optout processes when you scan a mailbox, where, and for how long; every table it stores and what it never stores.',
    canonical: `${f.baseUrl}/privacy`,
    og: { type: 'website', url: `${f.baseUrl}/privacy` },
    body: html`<article class="trust">
<header class="page-head"><h1>Privacy</h1>
<p class="lead">optout reads a mailbox for a moment and forgets it. This page says exactly what passes through the server at ${f.host}, for how long, and the little it keeps.</p></header>
<ul class="trust-summary">
<li>Your password and your mail stay in the server’s memory for one session, then they are wiped.</li>
<li>Nothing about your mailbox is stored except a keyed hash of its address for the daily scan limit, deleted when the day ends.</li>
<li>No accounts, no advertising, no tracking scripts.</li>
</ul>
${scanSection(f)}
${unsubscribeSection()}
${microsoftSection(f)}
${storedSection()}
${elsewhereSection(f)}
<p>Questions about privacy: write to <a href="${f.contact}">${f.contactText}</a>. See also <a href="/security">Security</a> and <a href="/about">About</a>.</p>
</article>`,
  });
}
