/**
 * GET /api/v1/services, /api/v1/services/{slug}, /api/v1/categories (interface.md §4.5).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorEnvelope, envelopeOf, ok } from '../http/envelope.ts';
import { notFound } from '../http/errors.ts';
import { methodNotAllowed } from '../http/method-not-allowed.ts';
import type { Db } from '../storage/index.ts';
import { CategoryList, ServiceDetail, ServiceList, ServiceListQuery, SlugParams } from './api-schemas.ts';
import type { Catalog } from './load.ts';
import { search } from './search.ts';
import { readStates, toDetail, toListItem } from './view.ts';

export interface CatalogRouteOptions {
  catalog: Catalog;
  db: Db;
}

export const catalogRoutes: FastifyPluginAsyncZod<CatalogRouteOptions> = async (app, { catalog, db }) => {
  app.get(
    '/services',
    {
      schema: {
        tags: ['catalog'],
        summary: 'Search and browse services',
        description: 'Best match first when `q` is given, otherwise by name. A page past the end is empty.',
        querystring: ServiceListQuery,
        response: { 200: envelopeOf(ServiceList), 400: ErrorEnvelope },
      },
    },
    async (req) => {
      const { q, cat, page, page_size } = req.query;
      let matches = q ? search(catalog.entries, q) : catalog.entries;
      if (cat) matches = matches.filter((e) => e.record.category === cat);
      const slice = matches.slice((page - 1) * page_size, page * page_size);
      const states = await readStates(
        db,
        slice.map((e) => e.record.slug),
      );
      return ok({
        items: slice.map((e) => toListItem(e, states.get(e.record.slug))),
        total: matches.length,
        page,
        page_size,
      });
    },
  );
  methodNotAllowed(app, '/services', ['GET']);

  app.get(
    '/services/:slug',
    {
      schema: {
        tags: ['catalog'],
        summary: 'One service: steps, traps, friction and sources',
        params: SlugParams,
        response: { 200: envelopeOf(ServiceDetail), 404: ErrorEnvelope },
      },
    },
    async (req) => {
      const entry = catalog.bySlug.get(req.params.slug.toLowerCase());
      if (!entry) throw notFound(`service ${JSON.stringify(req.params.slug)}`);
      const states = await readStates(db, [entry.record.slug]);
      return ok(toDetail(entry, states.get(entry.record.slug)));
    },
  );
  methodNotAllowed(app, '/services/:slug', ['GET']);

  app.get(
    '/categories',
    {
      schema: {
        tags: ['catalog'],
        summary: 'Browse categories with the number of services in each',
        response: { 200: envelopeOf(CategoryList) },
      },
    },
    async () => {
      const counts = new Map<string, number>();
      for (const e of catalog.entries) counts.set(e.record.category, (counts.get(e.record.category) ?? 0) + 1);
      return ok({ categories: catalog.categories.map((c) => ({ ...c, count: counts.get(c.slug) ?? 0 })) });
    },
  );
  methodNotAllowed(app, '/categories', ['GET']);
};
