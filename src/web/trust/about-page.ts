/** /about: what optout is, who runs this site, what it costs, and where to write. */
import { html, renderPage } from '../html.ts';
import type { TrustFacts } from './facts.ts';

export function aboutPage(f: TrustFacts, services: number): string {
  const who = f.operator
    ? html`This site, ${f.host}, is run by ${f.operator}.`
    : html`This site, ${f.host}, runs optout; its operator has not published a name here.`;
  return renderPage({
    title: 'About · optout',
    description: 'What optout is, who runs this site, what it costs, and how to get in touch.',
    canonical: `${f.baseUrl}/about`,
    og: { type: 'website', url: `${f.baseUrl}/about` },
    body: html`<article class="trust">
<header class="page-head"><h1>About optout</h1>
<p class="lead">optout helps people get out of things they no longer want: the mailing lists that fill an inbox, and the paid services that are hard to leave.</p></header>
<section aria-labelledby="what-h"><h2 id="what-h">What it does</h2>
<ul>
<li><a href="/">The inbox tool</a> reads your mailbox’s headers for a moment, lists every sender that offers an unsubscribe, shows how often each one writes and how much of it you read, and unsubscribes you from the ones you pick. ${f.dailyLimit} scans per mailbox per day.</li>
<li><a href="/services">Cancellation guides</a> for ${services} paid services: the steps, the traps, and how hard each one makes it to leave, with the sources every fact rests on.</li>
<li><a href="/blog/">The blog</a> explains how unsubscribing works and what else helps, with the sources for what it says.</li>
<li><a href="/docs">A public API</a> serves the same catalog to programs and AI agents.</li>
</ul></section>
<section aria-labelledby="who-h"><h2 id="who-h">Who runs it, and what it costs</h2>
<p>${who} optout has no accounts, no advertising and no paid plan: every feature on this site is free to use, within the daily scan limit.</p>
<p>Write to <a href="${f.contact}">${f.contactText}</a>.</p></section>
<section aria-labelledby="trust-h"><h2 id="trust-h">What it keeps</h2>
<p>Almost nothing: your password and mail stay in the server’s memory for one session. <a href="/privacy">Privacy</a> lists every table the site stores and for how long; <a href="/security">Security</a> says how to report a vulnerability.</p></section>
</article>`,
  });
}
