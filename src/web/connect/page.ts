/**
 * The hand-off page (src/handoff/): where a person signs in so that an AI agent's scan can
 * run, without the agent ever seeing the password. One form, no script: the address is fixed
 * (the page is bound to the scan and that address); the person types the app password; the
 * answer says what happened. Errors are announced (role="alert") and tied to the field.
 */

import type { Handoff } from '../../handoff/store.ts';
import { presetFor } from '../../mailbox/providers.ts';
import { html, renderPage, type SafeHtml } from '../html.ts';

const shell = (title: string, body: SafeHtml) =>
  renderPage({
    title: `${title} · optout`,
    description: 'Sign in so your AI agent can scan your mailbox for subscriptions.',
    body: html`<section class="notice-page connect-page">${body}</section>`,
    head: html`<meta name="robots" content="noindex, nofollow">`,
  });

const until = (d: Date) => {
  const iso = d.toISOString();
  return html`<time datetime="${iso}">${iso.slice(11, 16)} UTC</time>`;
};

function where(h: Handoff): string {
  const r = h.request;
  if (r.imap) return `${r.imap.host}:${r.imap.port}`;
  return presetFor(r.provider)?.name ?? r.provider;
}

const wipe = (h: Handoff) =>
  html`<form method="post" action="/connect/forget"><input type="hidden" name="token" value="${h.connectToken}">
<button type="submit" class="button secondary">Stop and wipe now</button></form>`;

function signInForm(h: Handoff, error: SafeHtml | null, triesLeft: number): SafeHtml {
  const preset = presetFor(h.request.provider);
  const help = preset
    ? html`<p class="small" id="password-help">${preset.name} needs an <em>app password</em> for this, not your normal password. ${preset.appPasswordHelp}${
        preset.appPasswordUrl
          ? html` <a href="${preset.appPasswordUrl}" target="_blank" rel="noopener noreferrer">Create one<span class="visually-hidden"> (opens in a new tab)</span></a>`
          : ''
      }</p>`
    : html`<p class="small" id="password-help">Your mailbox password, or an app password if your provider offers them.</p>`;
  return html`${error ? html`<div class="error" role="alert" id="sign-in-error">${error}</div>` : ''}
<form method="post" action="/connect">
<input type="hidden" name="token" value="${h.connectToken}">
<div class="field"><label for="email">Email address</label><input id="email" name="username" type="email" autocomplete="username" value="${h.request.email}" readonly></div>
<div class="field"><label for="password">App password</label><input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024" aria-describedby="password-help${error ? ' sign-in-error' : ''}"${error ? html` aria-invalid="true"` : ''}></div>
${help}
<button type="submit" class="button">Scan my mailbox</button>
</form>
<p class="small muted">${triesLeft} ${triesLeft === 1 ? 'try' : 'tries'} left. The password stays in optout’s memory for this scan only, is never stored or shown to your agent, and is wiped at ${until(h.expiresAt)} with the results.</p>`;
}

export function connectPage(h: Handoff, triesLeft: number): string {
  const intro = html`<p>An AI agent asked optout to find the newsletters and mailing lists in <strong>${h.request.email}</strong> (${where(h)}). Your agent gets the list of senders and how to unsubscribe from each — never your password or your mail.</p>`;
  switch (h.status) {
    case 'awaiting_user':
      return shell(
        'Scan your mailbox',
        html`<h1>Scan your mailbox for your agent</h1>${intro}${signInForm(h, null, triesLeft)}`,
      );
    case 'failed': {
      const e = h.error!;
      if (triesLeft <= 0) {
        return shell(
          'Scan stopped',
          html`<h1>Scan stopped</h1><div class="error" role="alert"><p>${e.message}</p></div><p>There are no tries left on this link. Ask your agent to start a new scan.</p>`,
        );
      }
      return shell(
        'Scan your mailbox',
        html`<h1>Scan your mailbox for your agent</h1>${intro}${signInForm(h, html`<p>${e.message}</p>`, triesLeft)}`,
      );
    }
    case 'scanning': {
      const p = h.progress;
      return shell(
        'Scanning',
        html`<h1>Scanning your mailbox</h1>
<p role="status">Signed in. optout is reading the senders of your mail${p?.total ? html` (${p.done} of ${p.total} messages${p.mailbox ? html` in ${p.mailbox}` : ''})` : ''}. You can close this page: your agent gets the results.</p>
<p><a href="/connect?token=${h.connectToken}">Check again</a></p>${wipe(h)}`,
      );
    }
    case 'done': {
      const n = h.session.lastScan?.subscriptions.size ?? 0;
      return shell(
        'Scan done',
        html`<h1>Done</h1>
<p role="status">optout read ${h.done?.scanned ?? 0} messages and found ${n} ${n === 1 ? 'sender' : 'senders'} you can unsubscribe from. Your agent has the list now. You can close this page.</p>
<p>Your password and the results are wiped at ${until(h.expiresAt)}, or now:</p>${wipe(h)}`,
      );
    }
  }
}

export function goneConnectPage(): string {
  return shell(
    'This link has ended',
    html`<h1>This link has ended</h1><p>Scan links work for 15 minutes, or until you wipe them. Nothing from it is kept. If you still want a scan, ask your agent to start a new one.</p><p><a href="/">Go to optout</a></p>`,
  );
}

export function wipedPage(): string {
  return shell(
    'Wiped',
    html`<h1>Wiped</h1><p role="status">The scan stopped, and your password and its results are gone from optout’s memory. Your agent can no longer use them.</p><p><a href="/">Go to optout</a></p>`,
  );
}
