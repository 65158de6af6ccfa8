import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CATALOG_DIR, type Catalog, CatalogInvalidError, loadCatalog } from './load.ts';

let root: string;
let catalogDir: string;
let cacheDir: string;
let reference: Catalog;

const snapshots = async () => readdir(join(cacheDir, 'optout-catalog')).catch(() => []);
const plain = (c: Catalog) => ({
  entries: c.entries,
  slugs: [...c.bySlug.keys()],
  categories: c.categories,
  rights: [...c.rights],
});

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'optout-snapshot-'));
  catalogDir = join(root, 'catalog');
  cacheDir = join(root, 'cache');
  await cp(CATALOG_DIR, catalogDir, { recursive: true });
  reference = await loadCatalog(catalogDir);
});
after(() => rm(root, { recursive: true, force: true }));

describe('the validated catalog kept between starts', () => {
  test('a start with unchanged files gets the same catalog as one that checked every record', async () => {
    const first = await loadCatalog(catalogDir, { snapshotDir: cacheDir });
    assert.equal((await snapshots()).length, 1, 'the first start keeps one snapshot');
    const second = await loadCatalog(catalogDir, { snapshotDir: cacheDir });
    assert.deepEqual(plain(first), plain(reference));
    assert.deepEqual(plain(second), plain(reference));
  });

  test('the snapshot is what an unchanged start reads (its content shows through)', async () => {
    const [name] = await snapshots();
    const file = join(cacheDir, 'optout-catalog', name!);
    const text = await readFile(file, 'utf8');
    const marked = text.replace(`"name":"${reference.entries[0]!.record.name}"`, '"name":"From the snapshot"');
    assert.notEqual(marked, text);
    await writeFile(file, marked);
    const read = await loadCatalog(catalogDir, { snapshotDir: cacheDir });
    assert.equal(read.entries[0]!.record.name, 'From the snapshot');
    await writeFile(file, text);
  });

  test('a changed record file is checked again, and only the new snapshot is kept', async () => {
    const slug = reference.entries[0]!.record.slug;
    const path = join(catalogDir, 'services', `${slug}.json`);
    const original = await readFile(path, 'utf8');
    const record = JSON.parse(original) as { name: string };
    await writeFile(path, JSON.stringify({ ...record, name: `${record.name} Plus` }, null, 2));
    try {
      const read = await loadCatalog(catalogDir, { snapshotDir: cacheDir });
      assert.equal(read.bySlug.get(slug)!.record.name, `${record.name} Plus`);
      assert.notEqual(read.bySlug.get(slug)!.version, reference.bySlug.get(slug)!.version);
      assert.equal((await snapshots()).length, 1, 'the earlier catalog snapshot is removed');
    } finally {
      await writeFile(path, original);
    }
  });

  test('an invalid record stops the start although a snapshot of the valid catalog exists', async () => {
    await loadCatalog(catalogDir, { snapshotDir: cacheDir });
    const slug = reference.entries[1]!.record.slug;
    const path = join(catalogDir, 'services', `${slug}.json`);
    const original = await readFile(path, 'utf8');
    await writeFile(path, JSON.stringify({ ...JSON.parse(original), tier: 'not a field' }));
    try {
      await assert.rejects(loadCatalog(catalogDir, { snapshotDir: cacheDir }), CatalogInvalidError);
    } finally {
      await writeFile(path, original);
    }
  });

  test('a snapshot that cannot be parsed is ignored and replaced', async () => {
    await loadCatalog(catalogDir, { snapshotDir: cacheDir });
    const [name] = await snapshots();
    const file = join(cacheDir, 'optout-catalog', name!);
    await writeFile(file, '{"format":"optout-catalog-snapshot/1","entr');
    const read = await loadCatalog(catalogDir, { snapshotDir: cacheDir });
    assert.deepEqual(plain(read), plain(reference));
    assert.doesNotThrow(() => JSON.parse(readFileSync(file, 'utf8')));
  });

  test('a snapshot directory that cannot be written only costs the shortcut', async () => {
    const blocked = join(root, 'a-file');
    await writeFile(blocked, 'not a directory');
    const read = await loadCatalog(catalogDir, { snapshotDir: blocked });
    assert.deepEqual(plain(read), plain(reference));
  });
});
