import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createTestDatabase } from '../../test/helpers/postgres.ts';
import { type Db, openPglite, openPostgres } from './db.ts';
import { openStorage } from './index.ts';
import { DataDirLockedError, lockDataDir } from './lock.ts';
import { migrate, migrationFiles } from './migrate.ts';

// The same behaviour is asserted on both engines: one SQL dialect, one set of migrations.
const engines: {
  name: string;
  open: () => Promise<{ db: Db; reopen: () => Promise<Db>; drop: () => Promise<void> }>;
}[] = [
  {
    name: 'PGlite',
    async open() {
      const dir = await mkdtemp(join(tmpdir(), 'optout-lite-'));
      const db = await openPglite(dir);
      return { db, reopen: () => openPglite(dir), drop: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'PostgreSQL',
    async open() {
      const pg = await createTestDatabase();
      const db = await openPostgres(pg.url, 4);
      return { db, reopen: () => openPostgres(pg.url, 4), drop: pg.drop };
    },
  },
];

for (const engine of engines) {
  describe(`storage on ${engine.name}`, () => {
    test('migrations apply once and a second run applies nothing', async () => {
      const { db, drop } = await engine.open();
      try {
        // PGlite starts from the prepared image, which holds the migrations already (image.ts)
        await migrate(db);
        assert.deepEqual(await migrate(db), []);
        const { rows } = await db.query<{ name: string }>('select name from schema_migrations order by name');
        assert.deepEqual(
          rows.map((r) => r.name),
          await migrationFiles(),
        );
      } finally {
        await db.close();
        await drop();
      }
    });

    test('a failing transaction rolls back and keeps the connection usable', async () => {
      const { db, drop } = await engine.open();
      try {
        await migrate(db);
        await assert.rejects(
          db.transaction(async (tx) => {
            await tx.query("insert into services (slug, version, record) values ('a', 'v1', '{}')");
            await tx.query('select no_such_column from services');
          }),
        );
        const { rows } = await db.query('select * from services');
        assert.equal(rows.length, 0);
      } finally {
        await db.close();
        await drop();
      }
    });

    test('data survives closing and reopening', async () => {
      const { db, reopen, drop } = await engine.open();
      try {
        await migrate(db);
        await db.query('insert into services (slug, version, record) values ($1, $2, $3::jsonb)', [
          'kept',
          'v1',
          JSON.stringify({ name: 'Kept' }),
        ]);
        await db.close();
        const again = await reopen();
        const { rows } = await again.query<{ record: { name: string } }>(
          "select record from services where slug = 'kept'",
        );
        assert.equal(rows[0]?.record.name, 'Kept');
        await again.close();
      } finally {
        await drop();
      }
    });
  });
}

describe('migrations on PostgreSQL with several instances', () => {
  test('instances migrating at the same moment apply each migration exactly once', async () => {
    const pg = await createTestDatabase();
    const dbs = await Promise.all([1, 2, 3].map(() => openPostgres(pg.url, 2)));
    try {
      const results = await Promise.all(dbs.map((db) => migrate(db)));
      const applied = results.flat();
      assert.equal(applied.filter((f) => f === '0001_catalog.sql').length, 1);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
      await pg.drop();
    }
  });
});

describe('embedded data directory ownership', () => {
  const dirs: string[] = [];
  after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  test('a second owner of the same data directory is refused with a clear error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'optout-lock-'));
    dirs.push(dir);
    const db = await openStorage({ dataDir: dir, databaseUrl: undefined });
    try {
      await assert.rejects(openStorage({ dataDir: dir, databaseUrl: undefined }), (err: Error) => {
        assert.ok(err instanceof DataDirLockedError);
        assert.match(err.message, new RegExp(`in use by process ${process.pid}`));
        return true;
      });
    } finally {
      await db.close();
    }
    // Released on close: the directory can be opened again.
    const again = await openStorage({ dataDir: dir, databaseUrl: undefined });
    await again.close();
  });

  test('a pid file naming a live process that holds no lock does not stop the start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'optout-lock-'));
    dirs.push(dir);
    // Our parent is alive, but holds no lock: a pid is never the test of ownership.
    await writeFile(join(dir, 'optout.pid'), String(process.ppid));
    const unlock = await lockDataDir(dir);
    assert.equal((await readFile(join(dir, 'optout.pid'), 'utf8')).trim(), String(process.pid));
    await unlock();
    assert.equal(existsSync(join(dir, 'optout.pid')), false, 'the pid note goes with the lock');
  });
});
