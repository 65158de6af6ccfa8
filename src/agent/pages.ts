/**
 * The person's side of the claim: the page the emailed link opens, the page with the code, and
 * the pages for a link that can no longer be used. Plain server-rendered HTML in the site's
 * shell; one button, no script. Nothing here is indexed (X-Robots-Tag on the route, and ai.txt
 * and robots keep crawlers out).
 */
import { html, renderPage, type SafeHtml } from '../web/html.ts';
import type { AgentErrorCode } from './errors.ts';

const page = (title: string, body: SafeHtml) =>
  renderPage({
    title: `${title} · optout`,
    description: 'Link an AI agent to your email address at optout.',
    body: html`<section class="notice-page claim-page">${body}</section>`,
    head: html`<meta name="robots" content="noindex, nofollow">`,
  });

const codeForm = (token: string, label: string, secondary = false) =>
  html`<form method="post" action="/agent/auth/claim/view">
<input type="hidden" name="token" value="${token}">
<button type="submit" class="button${secondary ? ' secondary' : ''}">${label}</button>
</form>`;

export function claimLinkPage(token: string): string {
  return page(
    'Link an AI agent',
    html`<h1>Link an AI agent to your address</h1>
<p>An AI agent asked to act for you at optout and named this email address. If you asked it to, press the button: the next page shows a 6-digit code. Tell that code to your agent, and it can finish.</p>
${codeForm(token, 'Show my code')}
<p class="small muted">Did not ask an agent for this? Close this page: nothing happens without the code. Each press makes a new code; the previous one stops working.</p>`,
  );
}

export function otpPage(token: string, otp: string, expiresAt: string): string {
  const until = `${expiresAt.slice(11, 16)} UTC`;
  return page(
    'Your code',
    html`<h1>Your code</h1>
<p>Tell your agent this code:</p>
<p class="otp-code" role="status"><span class="visually-hidden">Code: </span><strong id="otp">${otp}</strong></p>
<p>It works once, until ${until} (<time datetime="${expiresAt}">${expiresAt}</time>). A few wrong tries end it.</p>
<p class="small muted">Only your agent should hear this code; optout never asks you for it.</p>
${codeForm(token, 'Make a new code', true)}`,
  );
}

const PROBLEMS: Partial<Record<AgentErrorCode, [string, string]>> = {
  not_found: ['This link is not valid', 'The link may be incomplete or was withdrawn. Ask your agent to start again.'],
  claim_expired: [
    'This link has expired',
    'Claim links work for a short while. Ask your agent to start the claim again; a new email will come.',
  ],
  claim_superseded: ['A newer link was sent', 'Open the link in the newest email from optout instead.'],
  claim_completed: ['Already done', 'This agent is already linked to your address. Nothing more to do.'],
  rate_limited: ['Too many tries', 'Wait a while, then open the link again.'],
  invalid_request: ['Something is missing', 'Open the link from the email again.'],
};

export function problemPage(code: AgentErrorCode): string {
  const [title, text] = PROBLEMS[code] ?? PROBLEMS.not_found!;
  return page(title, html`<h1>${title}</h1><p>${text}</p><p><a href="/">Go to optout</a></p>`);
}
