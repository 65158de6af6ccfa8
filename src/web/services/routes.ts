/** GET /services and /services/{slug}: the catalog as pages. */
import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../../catalog/load.ts';
import { search } from '../../catalog/search.ts';
import type { ServiceStates } from '../../catalog/states.ts';
import { CATEGORY_SLUGS } from '../../catalog/vocabulary.ts';
import type { Config } from '../../config.ts';
import { indexPage, PAGE_SIZE } from './index-page.ts';
import { servicePage } from './service-page.ts';

const one = (v: unknown) => (Array.isArray(v) ? v[0] : v);
const isCategory = (v: string): v is (typeof CATEGORY_SLUGS)[number] =>
  (CATEGORY_SLUGS as readonly string[]).includes(v);

export function serviceRoutes(
  app: FastifyInstance,
  { config, catalog, states }: { config: Config; catalog: Catalog; states: ServiceStates },
) {
  app.get<{ Querystring: Record<string, unknown> }>('/services', { schema: { hide: true } }, async (req, reply) => {
    // A page is forgiving where the API is strict: odd parameters fall back to defaults.
    const q = String(one(req.query.q) ?? '')
      .trim()
      .slice(0, 100);
    const rawCat = String(one(req.query.cat) ?? '');
    const cat = isCategory(rawCat) ? rawCat : null;
    let matches = q ? search(catalog.entries, q) : catalog.entries;
    if (cat) matches = matches.filter((e) => e.record.category === cat);
    const pages = Math.max(1, Math.ceil(matches.length / PAGE_SIZE));
    const page = Math.min(pages, Math.max(1, Number.parseInt(String(one(req.query.page) ?? '1'), 10) || 1));
    reply.type('text/html; charset=utf-8').header('cache-control', 'public, max-age=300');
    return indexPage(config, catalog, { q, cat, page }, matches);
  });

  app.get<{ Params: { slug: string } }>('/services/:slug', { schema: { hide: true } }, async (req, reply) => {
    const entry = catalog.bySlug.get(req.params.slug.toLowerCase());
    if (!entry) return reply.callNotFound();
    // The link status is the API's: the same in-memory snapshot, no query per page.
    const state = (await states.snapshot()).get(entry.record.slug);
    // Short cache: the link status shown here changes when someone re-checks it.
    reply.type('text/html; charset=utf-8').header('cache-control', 'public, max-age=60');
    return servicePage(config, catalog, entry, state);
  });
}
