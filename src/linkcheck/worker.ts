/**
 * Runs one link-check job: picks the service's cancel link (cancel page, else help
 * article, else website), checks it through the outbound guard, and records the result.
 * Idempotent under at-least-once delivery: the history row is keyed by job id and the
 * latest state is an upsert.
 */
import type { Logger } from 'pino';
import type { Catalog } from '../catalog/load.ts';
import type { OutboundGuard } from '../outbound/guard.ts';
import type { Db } from '../storage/index.ts';
import { checkLink } from './check.ts';

export interface WorkerDeps {
  db: Db;
  catalog: Catalog;
  guard: OutboundGuard;
  logger: Logger;
  userAgent: string;
  /** called after a check is recorded (the catalog API's state snapshot is refreshed) */
  onRecorded?: () => void;
}

/** `last_verified` moves only when the check reached the page, possibly at a new address. */
const REACHED = new Set(['ok', 'moved']);

export function linkCheckHandler(deps: WorkerDeps) {
  return async (job: { id: string; data: { slug: string } }): Promise<void> => {
    const entry = deps.catalog.bySlug.get(job.data.slug);
    if (!entry) {
      deps.logger.warn({ slug: job.data.slug }, 'link check for a service no longer in the catalog');
      return;
    }
    const r = entry.record;
    const url = r.cancel.url ?? r.cancel.help_url ?? r.website;
    const prev = await deps.db.query<{ hash: string | null }>(
      `select content_hash as hash from link_checks where slug = $1 and url = $2 and content_hash is not null
       order by checked_at desc limit 1`,
      [r.slug, url],
    );
    const result = await checkLink(
      deps.guard,
      { url, officialDomains: r.domains.web, previousHash: prev.rows[0]?.hash ?? null },
      { userAgent: deps.userAgent },
    );
    const checkedAt = new Date().toISOString();
    const status = {
      outcome: result.outcome,
      http_status: result.http_status,
      final_url: result.final_url,
      checked_at: checkedAt,
    };
    await deps.db.transaction(async (tx) => {
      const inserted = await tx.query(
        `insert into link_checks (slug, job_id, url, outcome, http_status, final_url, redirects, content_hash,
                                  content_changed, detail, duration_ms, checked_at)
         values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12)
         on conflict (job_id) do nothing returning id`,
        [
          r.slug,
          job.id,
          url,
          result.outcome,
          result.http_status,
          result.final_url,
          JSON.stringify(result.redirects),
          result.content_hash,
          result.content_changed,
          result.detail,
          Math.round(result.duration_ms),
          checkedAt,
        ],
      );
      if (!inserted.rows.length) return;
      await tx.query(
        `insert into service_state (slug, link_status, last_verified) values ($1, $2::jsonb, $3)
         on conflict (slug) do update set link_status = excluded.link_status,
           last_verified = coalesce(excluded.last_verified, service_state.last_verified)`,
        [r.slug, JSON.stringify(status), REACHED.has(result.outcome) ? checkedAt : null],
      );
    });
    deps.onRecorded?.();
    deps.logger.info({ slug: r.slug, outcome: result.outcome, http_status: result.http_status }, 'link checked');
  };
}
