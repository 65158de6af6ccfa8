/**
 * Catalogs for tests whose links must point at loopback servers. The file validator
 * insists on https URLs on public domain names — right for the published catalog, but
 * a test's target is http://127.0.0.1:<port> — so these records skip file validation and
 * go straight to the same in-memory builder the loader uses.
 *
 * Every link of such a record is on the loopback origin (the link checker verifies them all):
 * by default the cancel page is the only one; `help`, `steps` and `sources` add more.
 */
import { type Catalog, catalogFrom } from '../../src/catalog/load.ts';
import type { ServiceRecord } from '../../src/catalog/record.schema.ts';
import { saveServiceState } from '../../src/linkcheck/service-check.ts';
import type { Queryable } from '../../src/storage/index.ts';
import { makeRecord } from './record.ts';

export interface LoopbackService {
  slug: string;
  /** the cancel page */
  url: string;
  help?: string;
  /** URLs of the record's steps, in order (the base record has two steps) */
  steps?: (string | null)[];
  /** confirmed official sources read at these URLs, cited by every step */
  sources?: string[];
}

export function loopbackRecord(t: LoopbackService): ServiceRecord {
  const u = new URL(t.url);
  const base = makeRecord({
    website: t.url,
    domains: { web: [u.hostname], email: [] },
    cancel: { url: t.url, help_url: t.help ?? null },
  });
  const sources: ServiceRecord['sources'] = t.sources?.length
    ? t.sources.map((url, i) => ({
        id: `s${i + 1}`,
        kind: 'official_help',
        publisher: `Loopback ${t.slug}`,
        title: `How to cancel, page ${i + 1}`,
        url,
        confirmed: true,
        read_at: '2026-11-26',
      }))
    : [{ ...base.sources[0]!, url: null }];
  const ids = sources.map((s) => s.id);
  return {
    ...base,
    slug: t.slug,
    name: `Loopback ${t.slug}`,
    steps: base.steps.map((s, i) => ({ ...s, url: t.steps?.[i] ?? null, source_ids: ids })),
    sources,
  };
}

export function loopbackCatalog(targets: LoopbackService[]): Catalog {
  return catalogFrom(targets.map(loopbackRecord), [{ slug: 'software-ai', name: 'Software', description: 'test' }]);
}

/**
 * Records a successful check of a service's cancel link, as a link-check worker (of this or
 * another instance on the same database) would: through the worker's own saveServiceState.
 */
export async function recordCheckedOk(db: Queryable, slug: string, finalUrl: string, at: string): Promise<void> {
  await saveServiceState(db, slug, { outcome: 'ok', http_status: 200, final_url: finalUrl, checked_at: at }, at);
}
