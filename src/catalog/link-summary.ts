/**
 * The link-check part of the catalog report: how many of the catalog's links have a recorded
 * check, when the newest and the oldest of those checks ran, and their outcomes. Only links
 * the records still carry count; a check of a URL since removed from a record is ignored.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { recordLinks } from '../linkcheck/links.ts';
import { type Db, openStorage } from '../storage/index.ts';
import { DataDirLockedError } from '../storage/lock.ts';
import type { Catalog } from './load.ts';
import type { LinkSummary } from './report.ts';

export async function linkSummary(db: Db, catalog: Catalog): Promise<LinkSummary> {
  const { rows } = await db.query<{ slug: string; url: string; outcome: string; checked_at: Date | string }>(
    'select slug, url, outcome, checked_at from link_state',
  );
  const latest = new Map(rows.map((r) => [`${r.slug} ${r.url}`, r]));
  const outcomes: Record<string, number> = {};
  let total = 0;
  let checked = 0;
  let newest: number | null = null;
  let oldest: number | null = null;
  for (const e of catalog.entries) {
    for (const link of recordLinks(e.record)) {
      total++;
      const row = latest.get(`${e.record.slug} ${link.url}`);
      if (!row) continue;
      checked++;
      outcomes[row.outcome] = (outcomes[row.outcome] ?? 0) + 1;
      const at = new Date(row.checked_at).getTime();
      newest = newest === null ? at : Math.max(newest, at);
      oldest = oldest === null ? at : Math.min(oldest, at);
    }
  }
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
  return { total, checked, last_checked_at: iso(newest), oldest_checked_at: iso(oldest), outcomes };
}

/**
 * The summary from the configured storage, for the report: PostgreSQL when DATABASE_URL is set,
 * else the embedded database in DATA_DIR if one exists and no running service holds it.
 */
export async function storedLinkSummary(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  catalog: Catalog,
): Promise<{ links: LinkSummary } | { reason: string }> {
  if (!config.databaseUrl && !existsSync(join(config.dataDir, 'db'))) {
    return { reason: `no database at ${join(config.dataDir, 'db')}; npm run catalog:check records checks there` };
  }
  let db: Db;
  try {
    db = await openStorage(config);
  } catch (err) {
    if (err instanceof DataDirLockedError) return { reason: err.message };
    return { reason: `storage could not be opened: ${(err as Error).message}` };
  }
  try {
    return { links: await linkSummary(db, catalog) };
  } finally {
    await db.close();
  }
}
