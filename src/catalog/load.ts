/**
 * Reads catalog/*.json once at start, validates every record and every rights file (a bad
 * one stops the start with file and field named), computes each record's friction and
 * content version, and builds the search keys. With `snapshotDir`, a start whose files and
 * checking code are unchanged reads that result back instead (snapshot.ts).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { computeFriction } from './friction/compute.ts';
import { type Catalog, CategoriesSchema, type Category } from './model.ts';
import type { ServiceRecord } from './record.schema.ts';
import { type Rights, validateRights } from './rights.ts';
import { searchKeys } from './search.ts';
import { readSnapshot, snapshotFile, writeSnapshot } from './snapshot.ts';
import { type CatalogIssue, formatIssue, validateCatalog, validateRecord } from './validate.ts';

export type { Catalog, CatalogEntry, Category } from './model.ts';

export const CATALOG_DIR = resolve(import.meta.dirname, '../../catalog');

export class CatalogInvalidError extends Error {
  override name = 'CatalogInvalidError';
  readonly issues: CatalogIssue[];
  constructor(issues: CatalogIssue[]) {
    super(`catalog has ${issues.length} problem(s):\n${issues.slice(0, 20).map(formatIssue).join('\n')}`);
    this.issues = issues;
  }
}

export interface LoadOptions {
  /**
   * keep the validated catalog here between starts, and use it when nothing it was made from
   * changed (snapshot.ts); main.ts passes Node's compile-cache directory
   */
  snapshotDir?: string;
}

export async function loadCatalog(dir = CATALOG_DIR, opts: LoadOptions = {}): Promise<Catalog> {
  const serviceDir = join(dir, 'services');
  const files = readdirSync(serviceDir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const rightsFiles = jsonFiles(join(dir, 'rights'));
  // Read synchronously, all before any is checked: ~500 small files took 35–55 ms through the
  // thread pool's callbacks and 7–11 ms this way, at a start when nothing else waits on the
  // thread (docs/benchmarks.md, "First start"); one awaited read after each check was slower still.
  const raws = files.map((f) => readFileSync(join(serviceDir, f), 'utf8'));
  const rightsRaws = rightsFiles.map((f) => readFileSync(join(dir, 'rights', f), 'utf8'));
  const categoriesRaw = readFileSync(join(dir, 'categories.json'), 'utf8');
  let snapshot: string | undefined;
  if (opts.snapshotDir) {
    const texts = new Map<string, string>([['categories.json', categoriesRaw]]);
    for (const [i, f] of files.entries()) texts.set(`services/${f}`, raws[i]!);
    for (const [i, f] of rightsFiles.entries()) texts.set(`rights/${f}`, rightsRaws[i]!);
    snapshot = await snapshotFile(opts.snapshotDir, texts);
    const kept = await readSnapshot(snapshot);
    if (kept) return kept;
  }

  const issues: CatalogIssue[] = [];
  const good: { file: string; record: ServiceRecord }[] = [];
  for (const [i, f] of files.entries()) {
    const file = `catalog/services/${f}`;
    const raw = raws[i]!;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (err) {
      issues.push({ file, path: '', message: `not valid JSON: ${(err as Error).message}` });
      continue;
    }
    const { record, issues: own } = validateRecord(file, json);
    issues.push(...own);
    if (record) good.push({ file, record });
  }
  issues.push(...validateCatalog(good));
  const rights = new Map<string, Rights>();
  for (const [i, f] of rightsFiles.entries()) {
    const file = `catalog/rights/${f}`;
    const { rights: r, issues: own } = validateRights(file, JSON.parse(rightsRaws[i]!));
    issues.push(...own);
    if (r) rights.set(r.region, r);
  }
  const categories = CategoriesSchema.parse(JSON.parse(categoriesRaw));
  if (issues.length) throw new CatalogInvalidError(issues);

  const catalog = catalogFrom(
    good.map((g) => g.record),
    categories,
    rights,
  );
  if (snapshot) await writeSnapshot(snapshot, catalog);
  return catalog;
}

function jsonFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Builds the in-memory catalog from records that already passed validation. */
export function catalogFrom(
  records: ServiceRecord[],
  categories: Category[],
  rights: Map<string, Rights> = new Map(),
): Catalog {
  const entries = records
    .map((record) => ({
      record,
      version: createHash('sha256').update(JSON.stringify(record)).digest('hex').slice(0, 16),
      friction: computeFriction(record),
      keys: searchKeys(record),
    }))
    .sort((a, b) => a.record.name.localeCompare(b.record.name, 'en'));
  return { entries, bySlug: new Map(entries.map((e) => [e.record.slug, e])), categories, rights };
}
