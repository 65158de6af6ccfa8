/**
 * The scan form of `/`: provider picker with each provider's app-password help, the
 * custom-server fields, email and password. Everything is in the HTML, so without scripts
 * a person still sees all the help; tool.js then shows only what the chosen provider needs.
 * The submit button starts disabled: without the script there is nothing to submit to, and
 * a disabled default button also blocks implicit submission (Enter), so a password can
 * never end up in a URL.
 */
import { OAUTH_PROVIDER, PROVIDERS } from '../../mailbox/providers.ts';
import { html, type SafeHtml } from '../html.ts';
import { foldersText } from '../shared/words.ts';

/** Where each provider's own app-password page lives, named for the link text. */
const OWNER: Record<string, string> = {
  gmail: 'Google',
  yahoo: 'Yahoo',
  icloud: 'Apple',
  aol: 'AOL',
  fastmail: 'Fastmail',
  zoho: 'Zoho',
  gmx: 'GMX',
  yandex: 'Yandex',
};

/**
 * Outlook / Microsoft 365: no password on this page, a sign-in with Microsoft instead
 * (docs/microsoft.md). Without OAUTH_CLIENT_ID the choice says it is not set up here, and
 * there is no button that could only fail.
 */
function microsoftSignIn(configured: boolean): SafeHtml {
  if (!configured) {
    return html`<div class="oauth-slot" id="oauth-slot" hidden><p class="note" id="ms-not-configured">Signing in with Microsoft is not set up on this server, so Outlook and Microsoft 365 mailboxes cannot be scanned here. (Its operator needs to register optout with Microsoft and set <code>OAUTH_CLIENT_ID</code>.)</p></div>`;
  }
  return html`<div class="oauth-slot" id="oauth-slot" hidden>
<div id="ms-signed-out"><p class="small">Outlook and Microsoft 365 need no password here. Sign in with Microsoft and allow optout to read your mail and to send unsubscribe emails from your address; you can withdraw that at any time in your Microsoft account.</p>
<p><a class="button" id="ms-sign-in" href="/auth/microsoft/start">Sign in with Microsoft</a></p></div>
<p id="ms-signed-in" hidden>Signed in with Microsoft as <strong id="ms-email"></strong>. <button type="submit" form="ms-signout" class="button secondary small">Sign out</button></p>
</div>`;
}

function providerPicker(oauthConfigured: boolean): SafeHtml {
  return html`<fieldset class="providers"><legend>Your email provider</legend>
<div class="provider-grid">${PROVIDERS.map(
    (p, i) =>
      html`<label class="provider"><input type="radio" name="provider" value="${p.id}"${i === 0 ? ' checked' : ''}><span>${p.name}</span></label>`,
  )}<label class="provider"><input type="radio" name="provider" value="${OAUTH_PROVIDER.id}"><span>${OAUTH_PROVIDER.name}</span></label><label class="provider"><input type="radio" name="provider" value="custom"><span>Other (IMAP)</span></label></div>
${microsoftSignIn(oauthConfigured)}
</fieldset>`;
}

function appPasswordHelp(): SafeHtml {
  return html`<section class="app-password" id="app-password" aria-labelledby="app-password-title">
<h3 id="app-password-title">Use an app password</h3>
<p class="small">Mail providers don’t let other apps sign in with your normal password. Create an <em>app password</em> just for this scan; you can delete it afterwards.</p>
<ul class="help-list">${PROVIDERS.map(
    (
      p,
    ) => html`<li data-provider="${p.id}" data-name="${p.name}" data-help-url="${p.appPasswordUrl ?? ''}"><strong>${p.name}:</strong> ${p.appPasswordHelp}
${p.appPasswordUrl ? html` <a href="${p.appPasswordUrl}" target="_blank" rel="noopener noreferrer">Create one at ${OWNER[p.id] ?? p.name}<span class="visually-hidden"> (opens in a new tab)</span></a>` : ''}</li>`,
  )}<li data-provider="custom" data-name="Your mail server" data-help-url=""><strong>Other servers:</strong> use your mailbox password, or an app password if your provider offers them. The server must use TLS with a valid certificate.</li></ul>
</section>`;
}

function customServer(): SafeHtml {
  return html`<fieldset class="custom-server" id="custom-server"><legend>Your mail server (for “Other”)</legend>
<div class="row">
<div class="field grow"><label for="imap-host">IMAP server</label><input id="imap-host" name="host" type="text" inputmode="url" autocomplete="off" spellcheck="false" placeholder="imap.example.com"></div>
<div class="field port"><label for="imap-port">Port</label><input id="imap-port" name="port" type="number" min="1" max="65535" value="993"></div>
<div class="field"><label for="imap-tls">Security</label><select id="imap-tls" name="tls"><option value="implicit">TLS (port 993)</option><option value="starttls">STARTTLS (port 143)</option></select></div>
</div>
<details class="smtp"><summary>Outgoing server (optional)</summary>
<p class="small muted">Some lists can only be left by email. With an outgoing (SMTP) server, optout sends that email from your address; without one, you get the link to open yourself.</p>
<div class="row">
<div class="field grow"><label for="smtp-host">SMTP server</label><input id="smtp-host" name="smtp_host" type="text" inputmode="url" autocomplete="off" spellcheck="false" placeholder="smtp.example.com"></div>
<div class="field port"><label for="smtp-port">Port</label><input id="smtp-port" name="smtp_port" type="number" min="1" max="65535" value="465"></div>
<div class="field"><label for="smtp-tls">Security</label><select id="smtp-tls" name="smtp_tls"><option value="implicit">TLS (port 465)</option><option value="starttls">STARTTLS (port 587)</option></select></div>
</div></details>
</fieldset>`;
}

export function scanForm(oauthConfigured: boolean): SafeHtml {
  return html`<form id="scan-form" class="card scan-form" action="/" method="post" autocomplete="off" aria-labelledby="form-title">
<h2 id="form-title">Scan your inbox</h2>
${providerPicker(oauthConfigured)}
${appPasswordHelp()}
${customServer()}
<div class="row" id="credentials">
<div class="field grow"><label for="email">Email address</label><input id="email" name="email" type="email" autocomplete="email" required spellcheck="false" aria-describedby="quota"></div>
<div class="field grow" id="password-field"><label for="password">App password</label><input id="password" name="password" type="password" autocomplete="off" required aria-describedby="password-promise"></div>
</div>
<p id="quota" class="small muted" aria-live="polite"></p>
<p id="folders-note" class="small">${foldersText(false, false)}</p>
<p id="password-promise" class="promise"><span class="lock" aria-hidden="true"></span>Your password is kept only in our server’s memory, for an hour at most and 10 minutes once you leave, then wiped; it is never stored or logged.</p>
<details class="options"><summary>More options</summary>
<div class="row">
<div class="field"><label for="since">Only mail since</label><input id="since" name="since" type="date"></div>
<label class="check"><input id="junk" name="junk" type="checkbox" aria-describedby="folders-note"> Also look in Junk / Spam</label>
<label class="check"><input id="trash" name="trash" type="checkbox" aria-describedby="folders-note"> Also look in Trash</label>
</div></details>
<noscript><p class="note">The scan runs live in your browser and needs JavaScript. Everything else here works without it: the <a href="/services">cancellation guides</a> and the <a href="/blog/">blog</a>.</p></noscript>
<div class="form-actions"><button type="submit" class="button" id="scan-button" disabled>Scan my inbox</button>
<button type="button" class="button secondary" id="cancel-button" hidden>Stop scanning</button></div>
</form>
${oauthConfigured ? html`<form id="ms-signout" method="post" action="/auth/microsoft/signout" hidden></form>` : ''}`;
}
