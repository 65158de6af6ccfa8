import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { makeRecord } from '../../test/helpers/record.ts';
import { loadEvidence, unreadConfirmed } from './evidence.ts';
import { CATALOG_DIR, loadCatalog } from './load.ts';
import { loadMostUsed, MOST_USED_SIZE, mostUsedProblems } from './most-used.ts';
import type { ServiceRecord } from './record.schema.ts';
import { computeReport } from './report.ts';
import { validateRights } from './rights.ts';
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

  test("every confirmed source is a page the evidence shows as read, on that day, on the service's own site", async () => {
    const evidence = await loadEvidence(join(CATALOG_DIR, 'evidence'));
    const problems = records.flatMap(({ record }) =>
      unreadConfirmed(record.sources, evidence.get(record.slug)).map((p) => `${record.slug}: ${p}`),
    );
    assert.deepEqual(problems, []);
  });

  test('every service has its evidence of what was searched, even when nothing was found', async () => {
    const evidence = await loadEvidence(join(CATALOG_DIR, 'evidence'));
    const missing = records
      .filter(({ record }) => !evidence.get(record.slug)?.searches.length)
      .map((r) => r.record.slug);
    assert.deepEqual(missing, []);
  });

  test('no sentence is repeated in five or more records', () => {
    const report = computeReport(
      records.map((r) => r.record),
      { today: new Date() },
    );
    assert.deepEqual(
      report.shared_sentences.map((s) => `${s.records}× ${s.sentence}`),
      [],
    );
    // the same with each service's own name masked: templated wording is filler too
    assert.deepEqual(
      report.templated_sentences.map((s) => `${s.records}× ${s.sentence}`),
      [],
    );
    assert.equal(report.home_pages_as_evidence, 0);
    assert.equal(report.prices.undated, 0);
  });

  test('no record or evidence file points at project notes: sources are pages, not our own documents', async () => {
    const internal = /\bresearch\b|anchors-|\.md\b/i;
    const offenders: string[] = [];
    for (const { file, json } of all) if (internal.test(JSON.stringify(json))) offenders.push(file);
    const evidenceDir = join(CATALOG_DIR, 'evidence');
    for (const f of (await readdir(evidenceDir)).filter((x) => x.endsWith('.json'))) {
      if (internal.test(await readFile(join(evidenceDir, f), 'utf8'))) offenders.push(`catalog/evidence/${f}`);
    }
    assert.deepEqual(offenders, []);
  });

  test(`the most-used list names ${MOST_USED_SIZE} different catalog records and says how it was ordered`, async () => {
    const list = await loadMostUsed(CATALOG_DIR);
    assert.deepEqual(mostUsedProblems(list, new Set(records.map((r) => r.record.slug))), []);
  });

  test('every rights file passes its rules, and its pages are in the evidence as read', async () => {
    const dir = join(CATALOG_DIR, 'rights');
    const files = (await readdir(dir)).filter((f) => f.endsWith('.json'));
    assert.ok(files.length >= 1);
    const evidence = await loadEvidence(join(CATALOG_DIR, 'evidence'));
    for (const f of files) {
      const { rights, issues } = validateRights(
        `catalog/rights/${f}`,
        JSON.parse(await readFile(join(dir, f), 'utf8')),
      );
      assert.deepEqual(issues.map(formatIssue), []);
      assert.deepEqual(unreadConfirmed(rights!.sources, evidence.get(`rights/${rights!.region}`)), []);
    }
  });

  test('the loaded catalog carries the rights of each region that has a file', async () => {
    const catalog = await loadCatalog();
    assert.deepEqual([...catalog.rights.keys()].sort(), ['DE', 'FR', 'GB', 'US']);
  });
});

describe('the catalog validator', () => {
  const file = 'catalog/services/example-service.json';
  const read = (): ServiceRecord['sources'][number] => ({
    id: 's1',
    kind: 'official_help',
    publisher: 'Example',
    title: 'Cancel your plan',
    url: 'https://www.example.com/help/cancel',
    confirmed: true,
    read_at: '2026-11-26',
  });
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
    r.sources[0] = { ...r.sources[0]!, confirmed: true, read_at: null };
    assert.ok(issuesOf(r).some((i) => i.startsWith('sources[0].confirmed:')));
  });

  test('an unconfirmed source must say why it is not confirmed', () => {
    const r = makeRecord();
    delete r.sources[0]!.via;
    assert.ok(issuesOf(r).some((i) => i.startsWith('sources[0].via:')));
  });

  test('a home page is refused as evidence for a confirmed source', () => {
    const r = makeRecord();
    r.sources[0] = { ...read(), url: 'https://www.example.com/' };
    assert.ok(issuesOf(r).some((i) => i.startsWith('sources[0].url:') && i.includes('home page')));
  });

  test('a phone number is accepted as a contact resting on a confirmed official page', () => {
    const r = makeRecord();
    r.sources[0] = read();
    r.cancel.contacts = [{ type: 'phone', phone: '1-800-555-0199', hours: null, source_ids: ['s1'] }];
    assert.deepEqual(issuesOf(r), []);
  });

  test('a phone contact resting on an unconfirmed source is refused', () => {
    const r = makeRecord();
    r.cancel.contacts = [{ type: 'phone', phone: '1-800-555-0199', hours: null, source_ids: ['s1'] }];
    assert.ok(issuesOf(r).some((i) => i.startsWith('cancel.contacts[0].source_ids:')));
  });

  test('a phone number in a contact note is still refused', () => {
    const r = makeRecord();
    r.sources[0] = read();
    r.cancel.contacts = [{ type: 'chat', note: 'Or call 1-800-555-0199 instead.', source_ids: ['s1'] }];
    assert.ok(issuesOf(r).some((i) => i.startsWith('cancel.contacts[0].note:')));
  });

  test('a letter contact needs the postal address', () => {
    const r = makeRecord();
    r.sources[0] = read();
    r.cancel.contacts = [{ type: 'postal_mail', source_ids: ['s1'] }];
    assert.ok(issuesOf(r).some((i) => i.startsWith('cancel.contacts[0].address:')));
  });

  test('a price needs the day it was read and a confirmed official source', () => {
    const r = makeRecord();
    r.plans[0]!.price = { amount_minor: 999, currency: 'USD', as_of: '2026-11-26', source_id: 's1' };
    assert.ok(issuesOf(r).some((i) => i.startsWith('plans[0].price.source_id:')));
    r.sources[0] = read();
    assert.deepEqual(issuesOf(r), []);
    delete (r.plans[0]!.price as { as_of?: string }).as_of;
    assert.ok(issuesOf(r).some((i) => i.startsWith('plans[0].price.as_of:')));
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
