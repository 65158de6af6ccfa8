/**
 * `npm run db:image`: makes the prepared data directory for the installed PGlite
 * (src/storage/pgdata-<version>.tar.gz, see image.ts) by letting PGlite's own initdb create a
 * cluster in memory, shutting nothing else down, and dumping it as a gzipped tar. Run it after
 * upgrading @electric-sql/pglite; the storage tests fail until the image for the new version exists.
 */
import { writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { imagePath, pgliteVersion } from './image.ts';

const lite = await PGlite.create('memory://');
// a clean shutdown checkpoint first, so the dump needs no recovery when it is opened
await lite.exec('checkpoint');
const tar = Buffer.from(await (await lite.dumpDataDir('none')).arrayBuffer());
await lite.close();
const path = imagePath();
await writeFile(path, gzipSync(tar, { level: 9 }));
process.stdout.write(`${path}: PGlite ${pgliteVersion()}, ${tar.length} bytes unpacked\n`);
