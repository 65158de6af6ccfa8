/**
 * Loads the catalog files into the database at start, so run-time state (link checks,
 * cached guides) can reference a record and its version. Idempotent: instances that
 * start together upsert the same rows.
 */
import type { Db } from '../storage/index.ts';
import type { Catalog } from './load.ts';

export const syncedStateQuery =
  'select slug, link_status, last_verified from service_state where slug = any($1::text[])';

export async function syncCatalog(db: Db, catalog: Catalog): Promise<void> {
  const rows = catalog.entries.map((e) => ({ slug: e.record.slug, version: e.version, record: e.record }));
  await db.query(
    `insert into services (slug, version, record)
     select x.slug, x.version, x.record from jsonb_to_recordset($1::jsonb) as x(slug text, version text, record jsonb)
     on conflict (slug) do update set version = excluded.version, record = excluded.record, loaded_at = now()
     where services.version <> excluded.version`,
    [JSON.stringify(rows)],
  );
}
