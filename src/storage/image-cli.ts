/**
 * `npm run db:image`: makes the prepared data directory for the installed PGlite
 * (src/storage/pgdata-<version>.tar.gz, see image.ts). PGlite's own initdb creates a cluster in
 * memory; then the migrations under src/storage/migrations/ are applied and the job queue's schema
 * is installed (pg-boss, src/linkcheck/queue.ts), as a first start would do, so that a new data
 * directory starts with both in place (~230 ms of a first start, docs/benchmarks.md). The cluster
 * is checkpointed and dumped as a gzipped tar.
 *
 * Run it after upgrading @electric-sql/pglite (the storage tests fail until the image for the new
 * version exists) and after adding a migration (a test fails until the image holds every one; an
 * older image still works, the start applies what it lacks).
 */
import { writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { pino } from 'pino';
import { openQueue } from '../linkcheck/queue.ts';
import { pgliteDb } from './db.ts';
import { imagePath, pgliteVersion, tarEntries } from './image.ts';
import { migrate } from './migrate.ts';

const lite = await PGlite.create('memory://');
const db = pgliteDb(lite);
const applied = await migrate(db);
// no schedule: each start writes its own (queue.ts); the image only carries the tables
const queue = await openQueue(db, pino({ level: 'silent' }), { schedule: null });
await queue.stop();
// Creating a file costs ~0.7 ms of kernel time here (docs/benchmarks.md, "First start"), and the
// first start writes every file of the image: the image keeps only what the service opens. The
// template databases serve CREATE DATABASE, which optout never runs (it uses `postgres`, PGlite's
// default), and the free-space and visibility-map forks (_fsm, _vm) are optional: PostgreSQL
// treats a missing one as empty and makes it when it first writes to it (fsm_readbuf in
// src/backend/storage/freespace/freespace.c, vm_readbuf in src/backend/access/heap/visibilitymap.c;
// image.test.ts checks that VACUUM writes both again).
await lite.exec("update pg_database set datistemplate = false where datname in ('template0', 'template1')");
await lite.exec('drop database template0');
await lite.exec('drop database template1');
// a clean shutdown checkpoint first, so the dump needs no recovery when it is opened
await lite.exec('checkpoint');
const dump = Buffer.from(await (await lite.dumpDataDir('none')).arrayBuffer());
const tar = withoutEntries(dump, (name) => /_(fsm|vm)$/.test(name));
await lite.close();
const path = imagePath();
await writeFile(path, gzipSync(tar, { level: 9 }));
process.stdout.write(
  `${path}: PGlite ${pgliteVersion()}, ${applied.length} migrations and the job queue's schema, ${tar.length} bytes unpacked\n`,
);

/** The ustar archive `tar` without the file entries whose path matches `drop`. */
function withoutEntries(tar: Buffer, drop: (path: string) => boolean): Buffer {
  const kept = [...tarEntries(tar)].filter((e) => !drop(e.path)).map((e) => e.record);
  return Buffer.concat([...kept, Buffer.alloc(1024)]);
}
