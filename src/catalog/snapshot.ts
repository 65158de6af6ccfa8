/**
 * The validated catalog, kept between starts: a start that finds the catalog files and the code
 * that checks them exactly as the last start left them reads the result of that start's checks
 * instead of checking 480+ records again (~100 ms of CPU, most of the catalog's share of a start;
 * docs/benchmarks.md, "First start").
 *
 * The snapshot is named by a SHA-256 over every catalog file's name and bytes, the source of the
 * modules that validate a record and derive its friction and search keys (this directory, tests
 * aside) and the installed zod version: any change to any of them names a different file, which
 * does not exist yet, so the catalog is checked in full and a new snapshot written. It lives
 * beside Node's compile cache (the service's entry turns it on; src/main.js), with the same trust:
 * whoever can write there can already change the code that runs. Without that cache, nothing is
 * kept and every start checks everything. A snapshot that cannot be read or parsed is ignored.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { findPackageJSON } from 'node:module';
import { dirname, join } from 'node:path';
import type { Catalog, CatalogEntry, Category } from './model.ts';
import type { Rights } from './rights.ts';

/** bumped when the snapshot's own shape changes */
const FORMAT = 'optout-catalog-snapshot/1';
const CODE_DIR = import.meta.dirname;
const SUBDIR = 'optout-catalog';

interface Snapshot {
  format: typeof FORMAT;
  entries: CatalogEntry[];
  categories: Category[];
  rights: Rights[];
}

let codeHash: string | undefined;

/** The catalog's checking code, as one hash: every non-test module in src/catalog/, and zod's version. */
function catalogCodeHash(): string {
  if (codeHash) return codeHash;
  const hash = createHash('sha256');
  const files = readdirSync(CODE_DIR, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .sort();
  for (const f of files)
    hash
      .update(`${f}\0`)
      .update(readFileSync(join(CODE_DIR, f)))
      .update('\0');
  const zod = findPackageJSON('zod', import.meta.url);
  hash.update(zod ? (JSON.parse(readFileSync(zod, 'utf8')) as { version: string }).version : 'no zod');
  codeHash = hash.digest('hex');
  return codeHash;
}

/** The snapshot's file for these catalog files (name → bytes, as read). */
export async function snapshotFile(dir: string, files: Map<string, string>): Promise<string> {
  const hash = createHash('sha256').update(FORMAT).update(catalogCodeHash());
  for (const [name, text] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) hash.update(`\0${name}\0`).update(text);
  return join(dir, SUBDIR, `${hash.digest('hex')}.json`);
}

/** The catalog as a start that checked exactly these files left it, or null. */
export async function readSnapshot(file: string): Promise<Catalog | null> {
  let snap: Snapshot;
  try {
    // synchronously, like the catalog files it stands for (load.ts)
    snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  } catch {
    return null;
  }
  if (snap?.format !== FORMAT || !Array.isArray(snap.entries)) return null;
  return {
    entries: snap.entries,
    bySlug: new Map(snap.entries.map((e) => [e.record.slug, e])),
    categories: snap.categories,
    rights: new Map(snap.rights.map((r) => [r.region, r])),
  };
}

/**
 * Keeps `catalog` for the next start, written whole or not at all (another process may read it
 * at the same time), and removes the snapshots of earlier catalogs. A failure only costs the next
 * start its shortcut.
 */
export async function writeSnapshot(file: string, catalog: Catalog): Promise<void> {
  const snap: Snapshot = {
    format: FORMAT,
    entries: catalog.entries,
    categories: catalog.categories,
    rights: [...catalog.rights.values()],
  };
  const dir = dirname(file);
  try {
    await mkdir(dir, { recursive: true });
    const part = `${file}.${process.pid}.part`;
    await writeFile(part, JSON.stringify(snap));
    await rename(part, file);
    for (const old of await readdir(dir)) {
      const path = join(dir, old);
      if (path !== file && !old.endsWith('.part')) await rm(path, { force: true });
    }
  } catch {}
}
