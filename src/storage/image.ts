/**
 * The prepared data directory: a new embedded database is made by unpacking a cluster that
 * PGlite's own initdb made once (`npm run db:image`, src/storage/image-cli.ts), instead of running
 * initdb in the service. initdb runs a second PostgreSQL instance beside the service's and peaked
 * the first start at ~1.1 GB resident; unpacking peaks near an ordinary start's memory and takes a
 * fraction of initdb's time (docs/benchmarks.md, bench/memory).
 *
 * The image belongs to one PGlite release (its PostgreSQL catalog version): it is named after the
 * installed @electric-sql/pglite version, and with no image for that version the caller lets PGlite
 * run initdb as before.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { findPackageJSON } from 'node:module';
import { dirname, join, normalize, sep } from 'node:path';
import { gunzipSync } from 'node:zlib';

const IMAGES = import.meta.dirname;

/** An image that cannot be what this repository made; `code` says how. */
export class ImageError extends Error {
  override name = 'ImageError';
  readonly code: 'IMAGE_BAD_ENTRY' | 'IMAGE_UNSUPPORTED_ENTRY' | 'IMAGE_NOT_A_CLUSTER';
  constructor(code: ImageError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

/** The installed PGlite version, from its package.json. */
export function pgliteVersion(): string {
  const pkg = findPackageJSON('@electric-sql/pglite', import.meta.url);
  if (!pkg) throw new Error('@electric-sql/pglite is not installed');
  return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
}

export const imagePath = (version = pgliteVersion()) => join(IMAGES, `pgdata-${version}.tar.gz`);

/** The gzipped tar of the prepared cluster for the installed PGlite, or null when there is none. */
export async function readImage(): Promise<Buffer | null> {
  const path = imagePath();
  return existsSync(path) ? readFile(path) : null;
}

/** A directory that is missing or empty; anything else is left to PGlite as it is. */
export async function isNewDir(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
}

/**
 * Makes `dir` from the image when `dir` is missing or empty and an image exists; returns whether
 * it did. The cluster is unpacked beside `dir` and renamed into place, so an interrupted first
 * start leaves no half-made database behind (the next start unpacks again). Like PGlite's initdb,
 * the files are not fsynced one by one: a crash right after the first start loses an empty
 * database at most.
 */
export async function createFromImage(dir: string, image: Buffer | null): Promise<boolean> {
  if (!image || !(await isNewDir(dir))) return false;
  const partial = `${dir}.partial`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true, mode: 0o700 });
  await untar(gunzipSync(image), partial);
  if (!existsSync(join(partial, 'PG_VERSION')))
    throw new ImageError('IMAGE_NOT_A_CLUSTER', 'the data-directory image has no PG_VERSION');
  await rm(dir, { recursive: true, force: true }); // missing or empty, checked above
  await rename(partial, dir);
  return true;
}

/** One entry of a ustar archive: its path (prefix joined), type flag, data, and the whole record. */
export interface TarEntry {
  name: string;
  path: string;
  type: string;
  data: Buffer;
  /** the header and the data blocks, as they stand in the archive */
  record: Buffer;
}

/**
 * The entries of a POSIX ustar archive (IEEE Std 1003.1-2001, the base of the "pax" format), up
 * to the end-of-archive blocks. Entries whose path is empty or would leave the archive's root are
 * refused here, for every reader alike.
 */
export function* tarEntries(tar: Buffer): Generator<TarEntry> {
  let offset = 0;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) return; // end of archive
    const field = (at: number, len: number) => {
      const raw = header.subarray(at, at + len);
      const end = raw.indexOf(0);
      return raw.subarray(0, end === -1 ? len : end).toString('utf8');
    };
    const name = field(0, 100);
    const prefix = field(345, 155);
    const size = Number.parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1) || '0';
    const path = normalize((prefix ? `${prefix}/${name}` : name).replace(/^\/+/, ''));
    if (!name || !Number.isFinite(size) || path.startsWith('..') || path.startsWith(sep))
      throw new ImageError('IMAGE_BAD_ENTRY', `data-directory image: bad entry ${JSON.stringify(name)}`);
    const length = 512 + Math.ceil(size / 512) * 512;
    yield {
      name,
      path,
      type,
      data: tar.subarray(offset + 512, offset + 512 + size),
      record: tar.subarray(offset, offset + length),
    };
    offset += length;
  }
}

/**
 * Unpacks an image's archive of regular files and directories into `root`. Anything else
 * (links, pax headers) is refused: the only archives read here are images this repository made.
 *
 * The files are written synchronously, each directory made once: one awaited write per file
 * (a round trip through libuv's thread pool each, and an mkdir before every one) took ~870 ms of a
 * first start (docs/benchmarks.md, "First start"). Nothing else is running yet while a new data
 * directory is made, so blocking the thread costs no one anything.
 */
export async function untar(tar: Buffer, root: string): Promise<number> {
  let files = 0;
  const made = new Set<string>();
  const dir = (path: string) => {
    if (made.has(path)) return;
    mkdirSync(path, { recursive: true, mode: 0o700 });
    made.add(path);
  };
  for (const entry of tarEntries(tar)) {
    const target = join(root, entry.path);
    if (entry.type === '5') {
      dir(target);
    } else if (entry.type === '0') {
      dir(dirname(target));
      writeFileSync(target, entry.data, { mode: 0o600 });
      files++;
    } else {
      throw new ImageError(
        'IMAGE_UNSUPPORTED_ENTRY',
        `data-directory image: entry type ${JSON.stringify(entry.type)} for ${entry.path}`,
      );
    }
  }
  return files;
}
