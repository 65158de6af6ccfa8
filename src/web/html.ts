/**
 * HTML escaping, a tagged template that escapes every interpolation by default, and the
 * page shell every page shares (head with canonical/Open Graph, site header and footer).
 * No inline scripts or styles anywhere: the CSP allows only same-origin files.
 */
import { assetUrl } from './assets.ts';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESC[c]!);

export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString() {
    return this.value;
  }
}

/** Marks markup we produced ourselves (e.g. markdown-it output with html: false) as safe. */
export const trusted = (markup: string) => new SafeHtml(markup);

type Part = string | number | null | undefined | false | SafeHtml | Part[];
const render = (p: Part): string =>
  p === null || p === undefined || p === false
    ? ''
    : p instanceof SafeHtml
      ? p.value
      : Array.isArray(p)
        ? p.map(render).join('')
        : escapeHtml(String(p));

export function html(strings: TemplateStringsArray, ...parts: Part[]): SafeHtml {
  return new SafeHtml(strings.reduce((out, s, i) => out + s + (i < parts.length ? render(parts[i]!) : ''), ''));
}

export type Section = 'tool' | 'services' | 'blog' | 'docs';

export interface PageOptions {
  title: string;
  description: string;
  body: SafeHtml;
  /** absolute URL of the page's one address */
  canonical?: string;
  /** Open Graph; og:title and og:description repeat title and description */
  og?: { type: 'website' | 'article'; url: string; siteName?: string; published?: string; modified?: string };
  /** asset names under /assets/, loaded as deferred modules */
  scripts?: string[];
  /** extra <head> content, e.g. a feed link */
  head?: SafeHtml;
  /** highlights the current section in the site navigation */
  section?: Section;
}

const NAV: [Section, string, string][] = [
  ['tool', '/', 'Clean inbox'],
  ['services', '/services', 'Cancel guides'],
  ['blog', '/blog/', 'Blog'],
  ['docs', '/docs', 'API'],
];

function headerHtml(section: Section | undefined): SafeHtml {
  return html`<a class="skip" href="#main">Skip to content</a>
<header class="site-header"><div class="wrap"><a class="brand" href="/"><span class="brand-mark" aria-hidden="true"></span>optout</a>
<nav aria-label="Main"><ul>${NAV.map(
    ([id, href, label]) =>
      html`<li><a href="${href}"${id === section ? html` aria-current="page"` : ''}>${label}</a></li>`,
  )}</ul></nav></div></header>`;
}

const FOOTER = html`<footer class="site-footer"><div class="wrap">
<p><strong>optout</strong> reads a mailbox for a moment to find list senders, and explains how to cancel paid services. Your password and mail stay in the server’s memory for one session (an hour at most); the only thing kept about a mailbox is a keyed hash of its address for the daily scan limit, deleted when the day ends.</p>
<nav aria-label="Footer"><ul class="footer-links"><li><a href="/privacy">Privacy</a></li><li><a href="/security">Security</a></li><li><a href="/about">About</a></li><li><a href="/services">Cancellation guides</a></li><li><a href="/blog/">Blog</a></li><li><a href="/blog/feed.xml">Atom feed</a></li><li><a href="/docs">API reference</a></li></ul></nav>
</div></footer>`;

export function renderPage(o: PageOptions): string {
  const og = o.og;
  const head = html`<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title}</title><meta name="description" content="${o.description}">
<meta name="color-scheme" content="light dark">
${o.canonical ? html`<link rel="canonical" href="${o.canonical}">` : ''}
${
  og
    ? html`<meta property="og:title" content="${o.title}"><meta property="og:description" content="${o.description}">
<meta property="og:type" content="${og.type}"><meta property="og:url" content="${og.url}"><meta property="og:site_name" content="${og.siteName ?? 'optout'}">
${og.published ? html`<meta property="article:published_time" content="${og.published}">` : ''}${og.modified ? html`<meta property="article:modified_time" content="${og.modified}">` : ''}`
    : ''
}
<link rel="icon" type="image/svg+xml" href="${assetUrl('favicon.svg')}">
<link rel="stylesheet" href="${assetUrl('site.css')}">
${(o.scripts ?? []).map((s) => html`<script type="module" src="${assetUrl(s)}"></script>`)}
${o.head ?? ''}`;
  return `<!doctype html>\n${html`<html lang="en"><head>${head}</head><body>${headerHtml(o.section)}<main id="main" class="wrap">${o.body}</main>${FOOTER}</body></html>`}`;
}

/** The plain shell kept for pages that need nothing else (e.g. /docs). */
export function page(title: string, description: string, body: SafeHtml, section?: Section): string {
  return renderPage({ title, description, body, section });
}
