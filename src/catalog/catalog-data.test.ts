import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { makeRecord } from '../../test/helpers/record.ts';
import { CATALOG_DIR } from './load.ts';
import type { ServiceRecord } from './record.schema.ts';
import { formatIssue, validateCatalog, validateRecord } from './validate.ts';

async function readAll() {
  const dir = join(CATALOG_DIR, 'services');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  return Promise.all(
    files.map(async (f) => ({
      file: `catalog/services/${f}`,
      json: JSON.parse(await readFile(join(dir, f), 'utf8')) as unknown,
    })),
  );
}

describe('the catalog data files', async () => {
  const all = await readAll();
  const results = all.map(({ file, json }) => ({ file, ...validateRecord(file, json) }));
  const records = results.flatMap((r) => (r.record ? [{ file: r.file, record: r.record }] : []));

  test('every record passes the schema and the cross-field rules', () => {
    const issues = results.flatMap((r) => r.issues).map(formatIssue);
    assert.deepEqual(issues, []);
  });

  test('slugs and sender domains are unique across the catalog', () => {
    assert.deepEqual(validateCatalog(records).map(formatIssue), []);
  });

  test('at least 200 services in at least 15 categories', () => {
    assert.ok(records.length >= 200, `${records.length} services`);
    const cats = new Set(records.map((r) => r.record.category));
    assert.ok(cats.size >= 15, `${cats.size} categories`);
  });

  test('steps and traps are written for each service, not copied from a template', () => {
    const stepKeys = new Map<string, string>();
    const trapTexts = new Map<string, string>();
    for (const { record } of records) {
      const key = record.steps.map((s) => `${s.title}|${s.detail ?? ''}`).join('\n');
      const other = stepKeys.get(key);
      assert.equal(other, undefined, `${record.slug} has the same steps as ${other}`);
      stepKeys.set(key, record.slug);
      for (const trap of record.traps) {
        const owner = trapTexts.get(trap.summary);
        assert.equal(owner, undefined, `trap text of ${record.slug} repeats ${owner}`);
        trapTexts.set(trap.summary, record.slug);
      }
    }
  });

  test('no price is presented as confirmed without a confirmed official source', () => {
    for (const { record } of records) {
      const confirmedPrice = record.plans.some((p) => p.price?.status === 'confirmed');
      if (confirmedPrice) {
        assert.ok(
          record.sources.some((s) => s.confirmed && s.kind.startsWith('official_')),
          `${record.slug} claims a confirmed price`,
        );
      }
    }
  });
});

describe('the catalog validator', () => {
  const file = 'catalog/services/example-service.json';
  const issuesOf = (r: unknown, f = file) => validateRecord(f, r).issues.map((i) => `${i.path}: ${i.message}`);

  test('a schema error names the file and the field', () => {
    const bad = { ...makeRecord(), category: 'pets' };
    const { issues } = validateRecord(file, bad);
    assert.equal(issues[0]?.file, file);
    assert.equal(issues[0]?.path, 'category');
  });

  test('a nested schema error names the full path', () => {
    const r = makeRecord();
    (r.steps[1] as { kind: string }).kind = 'dance';
    assert.ok(issuesOf(r).some((i) => i.startsWith('steps[1].kind:')));
  });

  test('the slug must match the file name', () => {
    assert.ok(issuesOf(makeRecord(), 'catalog/services/other.json').some((i) => i.startsWith('slug:')));
  });

  test('a cancel URL off the official domains is refused', () => {
    const r = makeRecord({ cancel: { url: 'https://cancel-help-line.example.net/x' } });
    assert.ok(issuesOf(r).some((i) => i.startsWith('cancel.url:')));
  });

  test('an app-store cancel URL is allowed', () => {
    const r = makeRecord({ cancel: { url: 'https://apps.apple.com/account/subscriptions' } });
    assert.deepEqual(issuesOf(r), []);
  });

  test('phone numbers are refused anywhere in the text', () => {
    const r = makeRecord();
    r.steps[0]!.detail = 'Call 1-800-555-0199 to cancel.';
    assert.ok(issuesOf(r).some((i) => i.startsWith('steps[0].detail:')));
  });

  test('a reference to an unknown source or trap is refused', () => {
    const r = makeRecord();
    r.steps[0]!.source_ids = ['s9'];
    r.steps[1]!.trap_ids = ['no-such-trap'];
    const issues = issuesOf(r);
    assert.ok(issues.some((i) => i.startsWith('steps[0].source_ids[0]:')));
    assert.ok(issues.some((i) => i.startsWith('steps[1].trap_ids[0]:')));
  });

  test('a source marked confirmed must say which page was read and when', () => {
    const r = makeRecord();
    r.sources[0] = { ...r.sources[0]!, confirmed: true, accessed_at: null };
    assert.ok(issuesOf(r).some((i) => i.startsWith('sources[0].confirmed:')));
  });

  test('a sender domain claimed by two records is reported on the second', () => {
    const a = makeRecord({ domains: { web: ['example.com'], email: ['mail.example.com'] } });
    const b: ServiceRecord = {
      ...makeRecord({ domains: { web: ['example.com'], email: ['mail.example.com'] } }),
      slug: 'b',
    };
    const issues = validateCatalog([
      { file: 'catalog/services/example-service.json', record: a },
      { file: 'catalog/services/b.json', record: b },
    ]);
    assert.equal(issues.length, 1);
    assert.equal(issues[0]?.file, 'catalog/services/b.json');
    assert.equal(issues[0]?.path, 'domains.email[0]');
  });
});
