/**
 * Applies src/storage/migrations/*.sql in name order, once each. The whole run holds a
 * transaction-scoped advisory lock, so instances that boot together against one
 * PostgreSQL apply each migration exactly once (drizzle-orm#874 is the race this avoids).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from './db.ts';

const DIR = join(import.meta.dirname, 'migrations');
const LOCK_KEY = 0x6f70746f; // "opto"

/** The migration files, in the order they apply. */
export async function migrationFiles(): Promise<string[]> {
  return (await readdir(DIR)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
}

export async function migrate(db: Db): Promise<string[]> {
  const files = await migrationFiles();
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [LOCK_KEY]);
    await tx.exec(
      'create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())',
    );
    const done = new Set(
      (await tx.query<{ name: string }>('select name from schema_migrations')).rows.map((r) => r.name),
    );
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      await tx.exec(await readFile(join(DIR, file), 'utf8'));
      await tx.query('insert into schema_migrations (name) values ($1)', [file]);
      applied.push(file);
    }
    return applied;
  });
}
