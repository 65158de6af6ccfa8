/**
 * GET /api/v1/services, /api/v1/services/{slug}, /api/v1/categories (docs/api.md).
 */
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorEnvelope, envelopeOf, ok } from '../http/envelope.ts';
import { notFound } from '../http/errors.ts';
import { methodNotAllowed } from '../http/method-not-allowed.ts';
import {
  CategoryList,
  ServiceDetail,
  ServiceList,
  ServiceListItem,
  ServiceListQuery,
  SlugParams,
} from './api-schemas.ts';
import type { Catalog, CatalogEntry } from './load.ts';
import { search } from './search.ts';
import type { ServiceStates, StateSnapshot } from './states.ts';
import { type ServiceState, toDetail, toListItem } from './view.ts';

export interface CatalogRouteOptions {
  catalog: Catalog;
  /** link-check state of every service, from memory (see states.ts) */
  states: ServiceStates;
}

/**
 * Builds a projection once per record and link state and hands out the same frozen object
 * while neither changes; the serializer (http/plumbing.ts) then validates and serializes it once.
 */
function projection<T extends object>(build: (e: CatalogEntry, state: ServiceState | undefined) => T) {
  const built = new Map<string, { state: ServiceState | undefined; value: T }>();
  return (e: CatalogEntry, state: ServiceState | undefined): T => {
    const hit = built.get(e.record.slug);
    if (hit && hit.state === state) return hit.value;
    const value = Object.freeze(build(e, state));
    built.set(e.record.slug, { state, value });
    return value;
  };
}

const ListEnvelope = envelopeOf(ServiceList);

/**
 * Writes a list response with each item's JSON made once per item object (items are frozen
 * projections, validated by ServiceListItem when first written). The envelope around them is
 * four integers the query schema already validated, so it is written directly: the same bytes
 * as the schema's serializer, without walking up to a hundred items through zod per request.
 */
function listSerializer() {
  const itemJson = new WeakMap<object, string>();
  return (payload: z.infer<typeof ListEnvelope>): string => {
    // An error envelope sent after this serializer was chosen (a failure while sending).
    if (payload.code !== '0' || !Array.isArray(payload.data?.items)) return JSON.stringify(payload);
    const { items, total, page, page_size } = payload.data;
    let json = '';
    for (const item of items) {
      let one = itemJson.get(item);
      if (one === undefined) {
        one = JSON.stringify(z.encode(ServiceListItem, item));
        itemJson.set(item, one);
      }
      json += json ? `,${one}` : one;
    }
    return `{"code":"0","data":{"items":[${json}],"total":${total},"page":${page},"page_size":${page_size}},"message":${JSON.stringify(payload.message)}}`;
  };
}

/**
 * Search results by raw query and category: the catalog never changes while the process runs,
 * and a search box sends the same few queries over and over (every visitor typing "netf…").
 * Bounded; the oldest query is dropped first.
 */
function searchCache(entries: readonly CatalogEntry[], max = 1000) {
  const cache = new Map<string, readonly CatalogEntry[]>();
  return (q: string | undefined, cat: string | undefined): readonly CatalogEntry[] => {
    if (!q && !cat) return entries;
    const key = `${cat ?? ''}\n${q ?? ''}`;
    let hit = cache.get(key);
    if (hit === undefined) {
      const found = q ? search(entries, q) : entries;
      hit = cat ? found.filter((e) => e.record.category === cat) : found;
      if (cache.size >= max) cache.delete(cache.keys().next().value!);
      cache.set(key, hit);
    }
    return hit;
  };
}

/**
 * Whole list pages as JSON, by validated query, for one state snapshot: a snapshot whose states
 * did not change keeps its identity (states.ts), so a page is built once and then sent as it is
 * until a link check changes a state. Bounded by size (a page of 100 items is ~30 KB); the oldest
 * page is dropped first.
 */
function pageCache(maxChars = 1 << 20) {
  let snapshot: StateSnapshot | undefined;
  const pages = new Map<string, string>();
  let chars = 0;
  return {
    get(state: StateSnapshot, key: string): string | undefined {
      if (state !== snapshot) {
        snapshot = state;
        pages.clear();
        chars = 0;
        return undefined;
      }
      return pages.get(key);
    },
    set(key: string, json: string) {
      if (json.length > maxChars) return;
      while (chars + json.length > maxChars) {
        const [oldest, dropped] = pages.entries().next().value!;
        pages.delete(oldest);
        chars -= dropped.length;
      }
      pages.set(key, json);
      chars += json.length;
    },
  };
}

const JSON_TYPE = 'application/json; charset=utf-8';

export const catalogRoutes: FastifyPluginAsyncZod<CatalogRouteOptions> = async (app, { catalog, states }) => {
  const listItem = projection(toListItem);
  const detail = projection((e, state) => ok(toDetail(e, state)));
  const listJson = listSerializer();
  const find = searchCache(catalog.entries);
  const pages = pageCache();
  const counts = new Map<string, number>();
  for (const e of catalog.entries) counts.set(e.record.category, (counts.get(e.record.category) ?? 0) + 1);
  const categories = Object.freeze(
    ok({ categories: catalog.categories.map((c) => ({ ...c, count: counts.get(c.slug) ?? 0 })) }),
  );

  app.get(
    '/services',
    {
      schema: {
        tags: ['catalog'],
        summary: 'Search and browse services',
        description: 'Best match first when `q` is given, otherwise by name. A page past the end is empty.',
        querystring: ServiceListQuery,
        response: { 200: ListEnvelope, 400: ErrorEnvelope },
      },
    },
    (req, reply) => {
      const query = req.query;
      const answer = (state: StateSnapshot) => {
        const { q, cat, page, page_size } = query;
        const key = `${page}\n${page_size}\n${cat ?? ''}\n${q ?? ''}`;
        let json = pages.get(state, key);
        if (json === undefined) {
          const matches = find(q, cat);
          const slice = matches.slice((page - 1) * page_size, page * page_size);
          json = listJson(
            ok({
              items: slice.map((e) => listItem(e, state.get(e.record.slug))),
              total: matches.length,
              page,
              page_size,
            }),
          );
          pages.set(key, json);
        }
        // a JSON string with its type is sent as it is (the list serializer made it)
        (reply as FastifyReply).type(JSON_TYPE).send(json);
      };
      // synchronously while the state snapshot is fresh; a reload is waited for
      const state = states.fresh();
      if (state) return answer(state);
      return states.snapshot().then(answer);
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
    (req) => {
      const entry = catalog.bySlug.get(req.params.slug.toLowerCase());
      if (!entry) throw notFound(`service ${JSON.stringify(req.params.slug)}`);
      const slug = entry.record.slug;
      const state = states.fresh();
      if (state) return detail(entry, state.get(slug));
      return states.snapshot().then((s) => detail(entry, s.get(slug)));
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
    async () => categories,
  );
  methodNotAllowed(app, '/categories', ['GET']);
};
