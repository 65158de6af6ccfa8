/**
 * Serves guides: the deterministic template writer when no model is configured, or the
 * model (which only rewords the record's facts) with a cache keyed by what determines
 * its output — record version, tone, locale and writer. Identical requests that arrive
 * while a model call is running share that call instead of paying for it twice.
 * A model failure is a result (→ 503 LLM_UNAVAILABLE with Retry-After), never a half
 * guide and never a silent switch to another writer.
 */
import type { Logger } from 'pino';
import type { CatalogEntry } from '../../catalog/load.ts';
import type { Db } from '../../storage/index.ts';
import type { LlmClient } from '../llm/index.ts';
import { writeGuideWithLlm } from './llm-writer.ts';
import { Guide, type Tone } from './schema.ts';
import { writeGuide } from './template-writer.ts';

export type GuideResult = { ok: true; guide: Guide; cached: boolean } | { ok: false; retryAfterSeconds: number };

export interface GuideService {
  guide(entry: CatalogEntry, options: { tone?: Tone; locale?: string }): Promise<GuideResult>;
}

export function createGuideService(deps: {
  db: Db;
  llm: LlmClient | null;
  /** provider and model, part of the cache key */
  writerId: string;
  timeoutMs: number;
  logger: Logger;
}): GuideService {
  const inflight = new Map<string, Promise<GuideResult>>();

  async function viaModel(entry: CatalogEntry, tone: Tone, locale: string, llm: LlmClient): Promise<GuideResult> {
    const key = [entry.record.slug, entry.version, tone, locale, deps.writerId];
    const hit = await deps.db.query<{ guide: unknown }>(
      'select guide from guide_cache where slug = $1 and version = $2 and tone = $3 and locale = $4 and writer = $5',
      key,
    );
    const cached = hit.rows[0] ? Guide.safeParse(hit.rows[0].guide) : undefined;
    if (cached?.success) return { ok: true, guide: cached.data, cached: true };

    const r = await writeGuideWithLlm(llm, entry.record, entry.friction, { tone, locale }, deps.timeoutMs);
    if (!r.ok) {
      deps.logger.warn({ slug: entry.record.slug, reason: r.reason, status: r.status }, 'guide model unavailable');
      return { ok: false, retryAfterSeconds: r.retryAfterSeconds };
    }
    await deps.db.query(
      `insert into guide_cache (slug, version, tone, locale, writer, guide) values ($1, $2, $3, $4, $5, $6::jsonb)
       on conflict do nothing`,
      [...key, JSON.stringify(r.guide)],
    );
    return { ok: true, guide: r.guide, cached: false };
  }

  return {
    async guide(entry, options) {
      const tone = options.tone ?? 'neutral';
      const llm = deps.llm;
      if (!llm)
        return {
          ok: true,
          guide: writeGuide(entry.record, entry.friction, { tone, locale: options.locale }),
          cached: false,
        };
      const locale = Intl.getCanonicalLocales(options.locale ?? entry.record.locale)[0] ?? entry.record.locale;
      const flightKey = `${entry.record.slug}|${entry.version}|${tone}|${locale}`;
      const running = inflight.get(flightKey);
      if (running) return running;
      const p = viaModel(entry, tone, locale, llm).finally(() => inflight.delete(flightKey));
      inflight.set(flightKey, p);
      return p;
    },
  };
}
