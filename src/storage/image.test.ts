import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { QUEUE, SWEEP_QUEUE } from '../linkcheck/queue.ts';
import { openPglite } from './db.ts';
import { createFromImage, imagePath, pgliteVersion, readImage } from './image.ts';
import { openStorage } from './index.ts';
import { migrationFiles } from './migrate.ts';

const dirs: string[] = [];
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'optout-image-'));
  dirs.push(d);
  return d;
};
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const systemId = async (dataDir: string) => {
  const db = await openStorage({ dataDir, databaseUrl: undefined });
  try {
    const { rows } = await db.query<{ id: string }>('select system_identifier::text as id from pg_control_system()');
    return rows[0]!.id;
  } finally {
    await db.close();
  }
};

describe('prepared data directory', () => {
  test('there is an image for the installed PGlite (npm run db:image makes it)', () => {
    assert.ok(existsSync(imagePath()), `no ${imagePath()} for PGlite ${pgliteVersion()}`);
  });

  test('a new data directory is unpacked from the image, not made by initdb', async () => {
    // initdb gives every cluster a new system identifier; clusters unpacked from one image share it
    const [a, b] = [await tempDir(), await tempDir()];
    const idA = await systemId(a);
    assert.equal(await systemId(b), idA);
    assert.ok(existsSync(join(a, 'db', 'PG_VERSION')));
    assert.ok(!existsSync(join(a, 'db.partial')), 'nothing half-made is left beside it');
    // and it is a database that keeps what it is given
    const db = await openStorage({ dataDir: a, databaseUrl: undefined });
    const { rows } = await db.query<{ n: number }>('select count(*)::int as n from schema_migrations');
    assert.ok(rows[0]!.n > 0, 'migrations were applied and kept');
    await db.close();
  });

  test('the image holds every migration and the job queue schema (npm run db:image after adding one)', async () => {
    const db = await openPglite(undefined);
    try {
      const { rows } = await db.query<{ name: string }>('select name from schema_migrations order by name');
      assert.deepEqual(
        rows.map((r) => r.name),
        await migrationFiles(),
      );
      const queues = await db.query<{ name: string }>('select name from pgboss.queue order by name');
      assert.deepEqual(
        queues.rows.map((r) => r.name),
        [QUEUE, SWEEP_QUEUE].sort(),
      );
    } finally {
      await db.close();
    }
  });

  test('the image holds the one database optout uses, without optional forks, and VACUUM makes them again', async () => {
    const dataDir = await tempDir();
    const db = await openStorage({ dataDir, databaseUrl: undefined });
    try {
      const dbs = await db.query<{ datname: string }>('select datname from pg_database order by datname');
      assert.deepEqual(
        dbs.rows.map((r) => r.datname),
        ['postgres'],
      );
      await db.exec(
        'create table forks_probe (n int); insert into forks_probe select generate_series(1, 5000); delete from forks_probe where n % 2 = 0',
      );
      await db.exec('vacuum forks_probe');
      const { rows } = await db.query<{ path: string }>("select pg_relation_filepath('forks_probe') as path");
      const main = join(dataDir, 'db', rows[0]!.path);
      assert.ok(existsSync(`${main}_fsm`), 'VACUUM wrote the free-space map');
      assert.ok(existsSync(`${main}_vm`), 'VACUUM wrote the visibility map');
      assert.equal((await db.query<{ n: number }>('select count(*)::int as n from forks_probe')).rows[0]!.n, 2500);
    } finally {
      await db.close();
    }
  });

  test('an in-memory database starts from the image too', async () => {
    const image = await readImage();
    const db = await openPglite(undefined);
    try {
      const { rows } = await db.query<{ n: number }>('select count(*)::int as n from pg_database');
      assert.equal(rows[0]!.n, 1);
    } finally {
      await db.close();
    }
    assert.ok(image);
  });

  test('a leftover of an interrupted first start is unpacked again', async () => {
    const dir = join(await tempDir(), 'db');
    await mkdir(`${dir}.partial/base`, { recursive: true });
    await writeFile(`${dir}.partial/base/junk`, 'x');
    assert.equal(await createFromImage(dir, await readImage()), true);
    assert.ok(existsSync(join(dir, 'PG_VERSION')));
    assert.ok(!existsSync(join(dir, 'base', 'junk')));
    assert.ok(!existsSync(`${dir}.partial`));
  });

  test('a directory that already holds files is never replaced', async () => {
    const dir = join(await tempDir(), 'db');
    await mkdir(dir);
    await writeFile(join(dir, 'keep.txt'), 'mine');
    assert.equal(await createFromImage(dir, await readImage()), false);
    assert.deepEqual(await readdir(dir), ['keep.txt']);
  });

  test('without an image nothing is unpacked (PGlite runs initdb)', async () => {
    const dir = join(await tempDir(), 'db');
    assert.equal(await createFromImage(dir, null), false);
    assert.ok(!existsSync(dir));
  });
});
