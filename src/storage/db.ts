/**
 * One small database interface over two engines that speak the same SQL: embedded
 * PGlite (the default, in DATA_DIR) and PostgreSQL (when DATABASE_URL is set).
 * Queries use $1-style parameters; nothing engine-specific leaks past this file.
 */
import { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { createFromImage, isNewDir, readImage } from './image.ts';
import { isDatabaseUnavailable } from './unavailable.ts';

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  /** runs a script of several statements without parameters */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** the PostgreSQL pool, for libraries that bring their own queries (rate limits); absent on PGlite */
  readonly pool?: pg.Pool;
  /** the PostgreSQL connection string (for libraries that open their own pool); absent on PGlite */
  readonly url?: string;
  /** the PGlite instance, for libraries with a PGlite adapter (the job queue); absent on PostgreSQL */
  readonly lite?: PGlite;
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * PGlite's own start parameters plus a small buffer cache. Its default, PostgreSQL's 128 MB of
 * shared_buffers, lives in the WebAssembly heap and so in the process's RSS; optout's tables
 * (the catalog's state rows, the job queue, agent registrations) fit in a few MB, and their pages
 * stay in the operating system's file cache anyway. 16 MB took the idle service on an existing
 * data dir from ~430 to ~300 MB RSS; 2 MB takes ~15 MB more off (docs/benchmarks.md).
 */
const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=2MB'];

export async function openPglite(dir: string | undefined): Promise<Db> {
  // A new database is unpacked from the prepared image rather than made by initdb (image.ts).
  // The image is read only for a directory still to be made: an existing one is just opened.
  const image = !dir || (await isNewDir(dir)) ? await readImage() : null;
  if (dir) await createFromImage(dir, image);
  // memory:// when no dir: used by unit tests that want a throwaway database.
  const lite = await PGlite.create(dir ?? 'memory://', {
    startParams: PGLITE_START_PARAMS,
    ...(!dir && image ? { loadDataDir: new Blob([image]) } : {}),
  });
  return pgliteDb(lite);
}

/** The Db interface over an open PGlite instance; closing it closes the instance. */
export function pgliteDb(lite: PGlite): Db {
  const wrap = (q: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query<T>(sql: string, params?: unknown[]) {
      const r = await q.query<T>(sql, params as unknown[]);
      return { rows: r.rows };
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
  });
  let closed = false;
  return {
    kind: 'pglite',
    lite,
    ...wrap(lite),
    // PGlite serialises everything through one connection; inside fn only `tx` may be
    // used, the outer handle would wait on the transaction mutex forever.
    transaction: (fn) => lite.transaction((tx) => fn(wrap(tx))),
    async close() {
      if (closed) return;
      closed = true;
      await lite.close();
    },
  };
}

export async function openPostgres(url: string, max = 10): Promise<Db> {
  // A request waits at most 10 s for a connection (a database that hangs must not hang every
  // request with it); that failure is answered 503 like any other outage (unavailable.ts).
  // pg loads only for PostgreSQL: the embedded default never needs it
  const { default: Pg } = await import('pg');
  const pool = new Pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 10_000 });
  // An idle client losing its connection must not crash the process.
  pool.on('error', () => {});
  await pool.query('select 1');
  const wrap = (q: pg.Pool | pg.PoolClient): Queryable => ({
    async query<T>(sql: string, params?: unknown[]) {
      const r = await q.query(sql, params);
      return { rows: r.rows as T[] };
    },
    async exec(sql: string) {
      await q.query(sql);
    },
  });
  let closed = false;
  return {
    kind: 'postgres',
    pool,
    url,
    ...wrap(pool),
    async transaction(fn) {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query('begin');
        const out = await fn(wrap(client));
        await client.query('commit');
        return out;
      } catch (err) {
        await client.query('rollback').catch(() => {});
        broken = isDatabaseUnavailable(err);
        throw err;
      } finally {
        // a client whose connection broke is dropped, not handed out again
        client.release(broken);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
