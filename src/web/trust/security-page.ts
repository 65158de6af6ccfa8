/**
 * /security: how to report a vulnerability (the contact from SECURITY_CONTACT, also published
 * in /.well-known/security.txt, RFC 9116) and the protections the code actually has.
 */
import { html, renderPage } from '../html.ts';
import type { TrustFacts } from './facts.ts';

export function securityPage(f: TrustFacts): string {
  return renderPage({
    title: 'Security · optout',
    description: 'How to report a vulnerability in optout, and how it protects the passwords and mail it handles.',
    canonical: `${f.baseUrl}/security`,
    og: { type: 'website', url: `${f.baseUrl}/security` },
    body: html`<article class="trust">
<header class="page-head"><h1>Security</h1>
<p class="lead">optout handles mailbox passwords for a few minutes at a time. If you find a way to get at them, or anything else that should not be possible, please tell us.</p></header>
<section aria-labelledby="report-h"><h2 id="report-h">Report a vulnerability</h2>
<p>Write to <a href="${f.contact}">${f.contactText}</a>. The same contact is published in <a href="/.well-known/security.txt">/.well-known/security.txt</a> (the format of RFC 9116), so security tools find it too.</p>
<ul>
<li>Say what you found, how to reproduce it, and what an attacker could do with it.</li>
<li>Never use a real person’s mailbox or credentials to test: scan your own mailbox, or a test server.</li>
<li>Give us a reasonable time to fix it before you publish. There is no bug bounty.</li>
</ul></section>
<section aria-labelledby="how-h"><h2 id="how-h">How optout protects what it handles</h2>
<ul>
<li><strong>Passwords and tokens stay in memory.</strong> They are never written to the database, a file, a log line or an error message; the test suite checks the data directory and every log line for them. Logging blanks passwords, tokens, cookies and secret values in addresses.</li>
<li><strong>Mail servers are reached over TLS with a verified certificate.</strong> Certificate checks are never turned off; a server without a valid certificate is refused before any password is sent.</li>
<li><strong>No request into private networks.</strong> Every outbound connection — to mail servers, unsubscribe addresses and the services’ pages — passes a guard that refuses private, loopback and link-local addresses, including after DNS resolution and on every redirect.</li>
<li><strong>Unsubscribe pages are never opened for you.</strong> optout only sends the one-click request a sender declares (RFC 8058); a link that needs a browser is handed to you.</li>
<li><strong>Secrets are stored only as hashes.</strong> Agents’ API keys and tokens are kept as SHA-256 hashes; addresses and one-time codes as keyed hashes.</li>
<li><strong>Pages run no inline code.</strong> A Content Security Policy allows only this site’s own scripts and styles; everything a stranger’s mail contains (sender names, subjects) is shown as text, never as markup.</li>
</ul></section>
<p>See also <a href="/privacy">Privacy</a> and <a href="/about">About</a>.</p>
</article>`,
  });
}
