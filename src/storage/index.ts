/**
 * Opens the configured store: PostgreSQL when DATABASE_URL is set, otherwise embedded
 * PGlite in DATA_DIR/db under an advisory lock (lock.ts). Migrations run before anything else uses it.
 */
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { type Db, openPglite, openPostgres } from './db.ts';
import { lockDataDir } from './lock.ts';
import { migrate } from './migrate.ts';

export type { Db, Queryable } from './db.ts';

export async function openStorage(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<Db> {
  if (config.databaseUrl) {
    const db = await openPostgres(config.databaseUrl);
    await migrate(db);
    return db;
  }
  const unlock = await lockDataDir(config.dataDir);
  try {
    const db = await openPglite(join(config.dataDir, 'db'));
    await migrate(db);
    const close = db.close;
    return Object.assign(db, {
      async close() {
        await close();
        await unlock();
      },
    });
  } catch (err) {
    await unlock();
    throw err;
  }
}
