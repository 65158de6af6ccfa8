/**
 * Checks every link of one service (links.ts) and records each result: a history row per
 * (job, URL) in link_checks, the latest per (service, URL) in link_state, and the cancel
 * link's in service_state (what the catalog API's `link_status` and `last_verified` say).
 *
 * Idempotent under at-least-once delivery: a retried job skips the URLs it already recorded,
 * and a history row that exists already does not touch the latest state again.
 */
import type { ServiceRecord } from '../catalog/record.schema.ts';
import type { OutboundGuard } from '../outbound/guard.ts';
import type { Queryable } from '../storage/db.ts';
import type { Db } from '../storage/index.ts';
import { checkLink, type LinkCheckResult } from './check.ts';
import { primaryLink, type RecordLink, recordLinks } from './links.ts';

export interface ServiceCheckDeps {
  db: Db;
  guard: OutboundGuard;
  userAgent: string;
  /** per-link timeout; the check's own default when absent */
  timeoutMs?: number;
}

export interface LinkResult extends LinkCheckResult {
  url: string;
  checked_at: string;
}

/** `last_verified` and `last_reached_at` move only when the check reached the page, possibly at a new address. */
export const REACHED = new Set(['ok', 'moved']);

export async function checkService(
  deps: ServiceCheckDeps,
  r: ServiceRecord,
  jobId: string,
  onLink?: (result: LinkResult) => void,
): Promise<LinkResult[]> {
  const done = await deps.db.query<{ url: string }>('select url from link_checks where job_id = $1', [jobId]);
  const recorded = new Set(done.rows.map((row) => row.url));
  const results: LinkResult[] = [];
  for (const link of recordLinks(r)) {
    if (recorded.has(link.url)) continue;
    const result = await checkOne(deps, r, link, jobId);
    results.push(result);
    onLink?.(result);
  }
  return results;
}

async function checkOne(deps: ServiceCheckDeps, r: ServiceRecord, link: RecordLink, jobId: string) {
  const prev = await deps.db.query<{ hash: string | null }>(
    `select content_hash as hash from link_checks where slug = $1 and url = $2 and content_hash is not null
     order by checked_at desc limit 1`,
    [r.slug, link.url],
  );
  const result = await checkLink(
    deps.guard,
    { url: link.url, officialDomains: link.officialDomains, previousHash: prev.rows[0]?.hash ?? null },
    { userAgent: deps.userAgent, ...(deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {}) },
  );
  const checkedAt = new Date().toISOString();
  const reached = REACHED.has(result.outcome) ? checkedAt : null;
  await deps.db.transaction(async (tx) => {
    const inserted = await tx.query(
      `insert into link_checks (slug, job_id, url, outcome, http_status, final_url, redirects, content_hash,
                                content_changed, detail, duration_ms, checked_at)
       values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12)
       on conflict (job_id, url) do nothing returning id`,
      [
        r.slug,
        jobId,
        link.url,
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
      `insert into link_state (slug, url, outcome, http_status, final_url, detail, checked_at, last_reached_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8)
       on conflict (slug, url) do update set outcome = excluded.outcome, http_status = excluded.http_status,
         final_url = excluded.final_url, detail = excluded.detail, checked_at = excluded.checked_at,
         last_reached_at = coalesce(excluded.last_reached_at, link_state.last_reached_at)`,
      [r.slug, link.url, result.outcome, result.http_status, result.final_url, result.detail, checkedAt, reached],
    );
    if (link.url !== primaryLink(r)) return;
    const status = {
      outcome: result.outcome,
      http_status: result.http_status,
      final_url: result.final_url,
      checked_at: checkedAt,
    };
    await saveServiceState(tx, r.slug, status, reached);
  });
  return { ...result, url: link.url, checked_at: checkedAt };
}

/** What the service page and `last_verified` show of a record: its primary link's latest check. */
export interface ServiceLinkStatus {
  outcome: string;
  http_status: number | null;
  final_url: string | null;
  checked_at: string;
}

/**
 * Records a service's primary-link outcome; `lastVerified` (when the link was last reached) is
 * kept from an earlier check when this one did not reach it.
 */
export async function saveServiceState(
  q: Queryable,
  slug: string,
  status: ServiceLinkStatus,
  lastVerified: string | null,
): Promise<void> {
  await q.query(
    `insert into service_state (slug, link_status, last_verified) values ($1, $2::jsonb, $3)
     on conflict (slug) do update set link_status = excluded.link_status,
       last_verified = coalesce(excluded.last_verified, service_state.last_verified)`,
    [slug, JSON.stringify(status), lastVerified],
  );
}
