/**
 * Loads the catalog files into the database at start, so run-time state (link checks,
 * cached guides) can reference a record and its version. Idempotent: instances that
 * start together upsert the same rows.
 */
import type { Db } from '../storage/index.ts';
import type { Catalog } from './load.ts';

export async function syncCatalog(db: Db, catalog: Catalog): Promise<void> {
  // Most starts find every record as it was: compare versions first and send only what changed
  // (sending all records costs a few hundred ms on PGlite, even when nothing is written).
  const stored = await db.query<{ slug: string; version: string }>('select slug, version from services');
  const versions = new Map(stored.rows.map((r) => [r.slug, r.version]));
  const rows = catalog.entries
    .filter((e) => versions.get(e.record.slug) !== e.version)
    .map((e) => ({ slug: e.record.slug, version: e.version, record: e.record }));
  if (!rows.length) return;
  await db.query(
    `insert into services (slug, version, record)
     select x.slug, x.version, x.record from jsonb_to_recordset($1::jsonb) as x(slug text, version text, record jsonb)
     on conflict (slug) do update set version = excluded.version, record = excluded.record, loaded_at = now()
     where services.version <> excluded.version`,
    [JSON.stringify(rows)],
  );
}
