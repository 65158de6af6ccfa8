/**
 * The catalog as tools, for any credential with `catalog.read` (pre-claim keys too): the same
 * search, records, guides and friction analyses as the public API (docs/api.md), with the same
 * shapes as its `data`.
 */
import { z } from 'zod';
import { ServiceDetail, ServiceList } from '../../catalog/api-schemas.ts';
import type { CatalogEntry } from '../../catalog/load.ts';
import { search } from '../../catalog/search.ts';
import { toDetail, toListItem } from '../../catalog/view.ts';
import { CategorySlug } from '../../catalog/vocabulary.ts';
import { Analysis, analyze } from '../../guidance/analyzer.ts';
import { Guide, LocaleTag, Tone } from '../../guidance/guide/schema.ts';
import { toolFailure } from '../errors.ts';
import { defineTool, ok, type ToolCall } from '../tool.ts';

const Slug = z.string().min(1).max(100).describe('service slug, from search_services');
const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

function entryFor(call: ToolCall, slug: string): CatalogEntry | null {
  return call.deps.catalog.bySlug.get(slug.toLowerCase()) ?? null;
}
const unknown = (slug: string) =>
  toolFailure('not_found', `no service ${JSON.stringify(slug)}; search_services finds slugs`);

export const searchServices = defineTool({
  name: 'search_services',
  title: 'Search services',
  description:
    'Search the catalog of paid services by name, alias or domain (best match first), or list a category. Each item has the slug the other catalog tools take, the cancellation difficulty tier and the cancel page.',
  scopes: ['catalog.read'],
  annotations: READ_ONLY,
  input: z.strictObject({
    query: z.string().trim().max(100).optional().describe('words of a name, alias or domain, e.g. "netflix"'),
    category: CategorySlug.optional().describe('only this category'),
    page: z.int().min(1).max(100_000).default(1),
    page_size: z.int().min(1).max(50).default(10),
  }),
  output: ServiceList,
  async run({ query, category, page, page_size }, call) {
    const { catalog, states } = call.deps;
    let matches: readonly CatalogEntry[] = query ? search(catalog.entries, query) : catalog.entries;
    if (category) matches = matches.filter((e) => e.record.category === category);
    const state = await states.snapshot();
    const items = matches
      .slice((page - 1) * page_size, page * page_size)
      .map((e) => toListItem(e, state.get(e.record.slug)));
    return ok({ items, total: matches.length, page, page_size });
  },
});

export const getService = defineTool({
  name: 'get_service',
  title: 'Get a service',
  description:
    'The full catalog record of one service: how to cancel (steps, channels, traps, retention offers, timing, verification), its friction scores and the sources every fact rests on.',
  scopes: ['catalog.read'],
  annotations: READ_ONLY,
  input: z.strictObject({ slug: Slug }),
  output: ServiceDetail,
  async run({ slug }, call) {
    const entry = entryFor(call, slug);
    if (!entry) return unknown(slug);
    return ok(toDetail(entry, (await call.deps.states.snapshot()).get(entry.record.slug)));
  },
});

export const getGuide = defineTool({
  name: 'get_guide',
  title: 'Get a cancellation guide',
  description:
    'A step-by-step cancellation guide for one service, in a tone (neutral, reassuring, terse) and a locale (BCP 47). Built only from the catalog facts.',
  scopes: ['catalog.read'],
  annotations: READ_ONLY,
  input: z.strictObject({ slug: Slug, tone: Tone.optional(), locale: LocaleTag.optional() }),
  output: Guide,
  async run({ slug, tone, locale }, call) {
    const entry = entryFor(call, slug);
    if (!entry) return unknown(slug);
    // The public API's per-IP limit, here per registration: a model may be paid per guide.
    const limit = await call.deps.guideLimit.consume(`agent:${call.principal.registrationId}`);
    if (!limit.allowed) {
      return toolFailure('rate_limited', `at most ${call.deps.guideLimit.spec.points} guides a minute`, {
        retry_after: limit.resetSeconds,
      });
    }
    const r = await call.deps.guides.guide(entry, { tone, locale });
    if (!r.ok) {
      return toolFailure('llm_unavailable', 'the guide writer is momentarily unavailable; retry later', {
        retry_after: r.retryAfterSeconds,
      });
    }
    return ok(r.guide);
  },
});

export const analyzeFriction = defineTool({
  name: 'analyze_friction',
  title: 'Analyze cancellation friction',
  description:
    'How hard a service is to leave: six axis scores (path, channel, retention, timing, verification, cost), the overall difficulty and tier, and why each axis scored as it did, by the published cf-1.0 rubric (no model involved).',
  scopes: ['catalog.read'],
  annotations: READ_ONLY,
  input: z.strictObject({ slug: Slug }),
  output: Analysis,
  async run({ slug }, call) {
    const entry = entryFor(call, slug);
    return entry ? ok(analyze(entry)) : unknown(slug);
  },
});
