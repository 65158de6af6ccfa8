/** /sitemap.xml (every public page) and /robots.txt (everything allowed, sitemap named). */
import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../catalog/load.ts';
import type { Config } from '../config.ts';
import type { Blog } from './blog/content.ts';
import { escapeHtml as x } from './html.ts';

export function sitemapXml(config: Config, catalog: Catalog, blog: Blog): string {
  const base = config.baseUrl;
  const newest = blog.articles
    .map((a) => a.updated)
    .sort()
    .at(-1);
  const urls: { loc: string; lastmod?: string }[] = [
    { loc: `${base}/` },
    { loc: `${base}/services` },
    ...catalog.entries.map((e) => ({ loc: `${base}/services/${e.record.slug}` })),
    { loc: `${base}/blog/`, lastmod: newest },
    { loc: `${base}/privacy` },
    { loc: `${base}/security` },
    { loc: `${base}/about` },
    ...blog.articles.map((a) => ({ loc: `${base}/blog/${a.slug}/`, lastmod: a.updated })),
  ];
  const body = urls
    .map((u) => `  <url><loc>${x(u.loc)}</loc>${u.lastmod ? `<lastmod>${u.lastmod}</lastmod>` : ''}</url>`)
    .join('\n');
  return `<?xml version="1.0" encoding="utf-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${body}\n</urlset>\n`;
}

export function seoRoutes(app: FastifyInstance, deps: { config: Config; catalog: Catalog; blog: Blog }) {
  const sitemap = sitemapXml(deps.config, deps.catalog, deps.blog);
  const robots = `User-agent: *\nAllow: /\n\nSitemap: ${deps.config.baseUrl}/sitemap.xml\n`;
  app.get('/sitemap.xml', { schema: { hide: true } }, (_req, reply) =>
    reply.type('application/xml; charset=utf-8').header('cache-control', 'public, max-age=3600').send(sitemap),
  );
  app.get('/robots.txt', { schema: { hide: true } }, (_req, reply) =>
    reply.type('text/plain; charset=utf-8').header('cache-control', 'public, max-age=3600').send(robots),
  );
}
