/**
 * /blog/ (index), /blog/<slug>/ (articles) and /blog/feed.xml (Atom). Everything is
 * rendered once at start: the articles do not change while the process runs.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { dayStamp, formatDate } from '../format.ts';
import { html, renderPage, type SafeHtml, trusted } from '../html.ts';
import type { Article, Blog } from './content.ts';
import { atomFeed } from './feed.ts';

const FEED_LINK = html`<link rel="alternate" type="application/atom+xml" title="optout blog" href="/blog/feed.xml">`;
const CACHE = 'public, max-age=600';

export const articleUrl = (config: Config, slug: string) => `${config.baseUrl}/blog/${slug}/`;

function dates(a: Article): SafeHtml {
  return html`<p class="byline">Published <time datetime="${a.published}">${formatDate(a.published)}</time>${
    a.updated !== a.published ? html` · updated <time datetime="${a.updated}">${formatDate(a.updated)}</time>` : ''
  } · ${Math.max(1, Math.round(a.words / 220))} min read</p>`;
}

function indexPage(config: Config, blog: Blog): string {
  const url = `${config.baseUrl}/blog/`;
  return renderPage({
    title: 'Blog · optout',
    description:
      'Practical guides to unsubscribing, stopping spam and cleaning up an inbox, with the standards explained.',
    canonical: url,
    og: { type: 'website', url },
    head: FEED_LINK,
    section: 'blog',
    body: html`<header class="page-head"><h1>Blog</h1>
<p class="lead">Plain guides to getting out of mailing lists and subscriptions: what works, what to avoid, and why.</p>
<p><a href="/blog/feed.xml">Subscribe with the Atom feed</a></p></header>
<ol class="article-list">${blog.articles.map(
      (a) => html`<li class="article-card"><h2><a href="/blog/${a.slug}/">${a.title}</a></h2>
<p>${a.description}</p>${dates(a)}</li>`,
    )}</ol>`,
  });
}

function articlePage(config: Config, blog: Blog, a: Article): string {
  const url = articleUrl(config, a.slug);
  const others = blog.articles.filter((o) => o.slug !== a.slug);
  return renderPage({
    title: `${a.title} · optout`,
    description: a.description,
    canonical: url,
    og: { type: 'article', url, published: dayStamp(a.published), modified: dayStamp(a.updated) },
    head: FEED_LINK,
    section: 'blog',
    body: html`<article class="article">
<nav class="crumbs" aria-label="Breadcrumb"><ol><li><a href="/blog/">Blog</a></li><li><span aria-current="page">${a.title}</span></li></ol></nav>
<header class="article-head"><h1>${a.title}</h1><p class="lead">${a.description}</p>${dates(a)}</header>
<div class="prose">${trusted(a.html)}</div>
<aside class="cta" aria-labelledby="cta-title"><h2 id="cta-title">Clean up your inbox in one pass</h2>
<p>optout finds every mailing list in your mailbox, shows how much of it you read, and unsubscribes from the ones you pick. Your password stays in our server’s memory for that session only and is never stored (<a href="/privacy">what is kept</a>).</p>
<p><a class="button" href="/">Scan my inbox</a></p></aside>
</article>
<section class="more" aria-labelledby="more-title"><h2 id="more-title">More from the blog</h2>
<ul class="link-list">${others.map((o) => html`<li><a href="/blog/${o.slug}/">${o.title}</a></li>`)}</ul></section>`,
  });
}

export function blogRoutes(app: FastifyInstance, { config, blog }: { config: Config; blog: Blog }) {
  const sendHtml = (reply: FastifyReply, body: string) =>
    reply.type('text/html; charset=utf-8').header('cache-control', CACHE).send(body);
  const index = indexPage(config, blog);
  // Each article's page and the feed are rendered when first asked for, then kept: rendering the
  // Markdown of every article took ~75 ms of each start (docs/benchmarks.md, "First start").
  const pages = new Map<string, string>();
  const page = (slug: string) => {
    const article = blog.bySlug.get(slug);
    if (!article) return undefined;
    let body = pages.get(slug);
    if (body === undefined) {
      body = articlePage(config, blog, article);
      pages.set(slug, body);
    }
    return body;
  };
  let feed: string | undefined;
  const atom = () => {
    feed ??= atomFeed(config, blog);
    return feed;
  };

  // The router ignores trailing slashes; the published addresses have one, so the bare
  // form redirects to it rather than serving a second copy.
  const slashed = (req: FastifyRequest, reply: FastifyReply) => {
    const [path, query] = req.url.split('?');
    if (path!.endsWith('/')) return false;
    reply.redirect(`${path}/${query === undefined ? '' : `?${query}`}`, 301);
    return true;
  };
  app.get('/blog/', { schema: { hide: true } }, (req, reply) => (slashed(req, reply) ? reply : sendHtml(reply, index)));
  app.get<{ Params: { slug: string } }>('/blog/:slug/', { schema: { hide: true } }, (req, reply) => {
    const body = page(req.params.slug);
    if (!body) return reply.callNotFound();
    return slashed(req, reply) ? reply : sendHtml(reply, body);
  });
  app.get('/blog/feed.xml', { schema: { hide: true } }, (_req, reply) =>
    reply.type('application/atom+xml; charset=utf-8').header('cache-control', CACHE).send(atom()),
  );
}
