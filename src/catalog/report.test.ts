import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeRecord } from '../../test/helpers/record.ts';
import { unreadConfirmed } from './evidence.ts';
import type { ServiceRecord, Source } from './record.schema.ts';
import { computeReport, formatReport, isStalePrice, SHARED_THRESHOLD, sentences } from './report.ts';
import { validateRights } from './rights.ts';

const today = new Date('2026-11-26T12:00:00Z');
const readHelp: Source = {
  id: 's2',
  kind: 'official_help',
  publisher: 'Example',
  title: 'Cancel your plan',
  url: 'https://www.example.com/help/cancel',
  confirmed: true,
  read_at: '2026-11-26',
};

function record(slug: string, patch: Partial<ServiceRecord> = {}): ServiceRecord {
  return { ...makeRecord(), slug, name: `Service ${slug}`, ...patch };
}

describe('the catalog report', () => {
  test('a record counts as resting on a read help article only when every step cites one', () => {
    const all = record('a');
    all.sources.push(readHelp);
    for (const s of all.steps) s.source_ids = ['s2'];
    const some = structuredClone(all);
    some.slug = 'b';
    some.steps[0]!.source_ids = ['s1'];
    const r = computeReport([all, some], { today });
    assert.equal(r.steps_on_read_help, 1);
    assert.equal(r.any_read_official, 2);
  });

  test('a confirmed home page is counted as a home page, never as a read help article', () => {
    const r = record('a');
    r.sources.push({ ...readHelp, url: 'https://www.example.com/' });
    for (const s of r.steps) s.source_ids = ['s2'];
    const report = computeReport([r], { today });
    assert.equal(report.home_pages_as_evidence, 1);
    assert.equal(report.steps_on_read_help, 0);
  });

  test('the most-used line counts listed records resting on a read help article and names the others', () => {
    const a = record('a');
    a.sources.push(readHelp);
    for (const s of a.steps) s.source_ids = ['s2'];
    const b = record('b');
    const r = computeReport([a, b], { today, mostUsed: ['b', 'a'] });
    assert.deepEqual(r.most_used, { listed: 2, on_read_help: 1, not_on_read_help: ['b'] });
    assert.match(formatReport(r), /^top 2 resting on a read official help article: 1\/2$/m);
    assert.equal(computeReport([a, b], { today }).most_used, undefined);
  });

  test('a direct cancel link is a cancel URL that is not a bare home page', () => {
    const a = record('a', { cancel: { ...makeRecord().cancel, url: 'https://www.example.com/account/cancel' } });
    const b = record('b', { cancel: { ...makeRecord().cancel, url: 'https://www.example.com' } });
    const c = record('c', { cancel: { ...makeRecord().cancel, url: null } });
    assert.equal(computeReport([a, b, c], { today }).direct_cancel_link, 1);
  });

  test(`a sentence in ${SHARED_THRESHOLD} records is reported, in one fewer it is not`, () => {
    const make = (n: number) =>
      Array.from({ length: n }, (_, i) => {
        const r = record(`r${i}`);
        r.steps[0]!.detail = `Keep the confirmation email. Then check your bank statement for service r${i}.`;
        return r;
      });
    assert.deepEqual(
      computeReport(make(SHARED_THRESHOLD), { today }).shared_sentences.map((s) => [s.sentence, s.records]),
      [['Keep the confirmation email', SHARED_THRESHOLD]],
    );
    assert.deepEqual(computeReport(make(SHARED_THRESHOLD - 1), { today }).shared_sentences, []);
  });

  test('the same sentence with only the service name changed is reported as templated', () => {
    const rs = Array.from({ length: SHARED_THRESHOLD }, (_, i) => {
      const r = record(`r${i}`);
      r.traps = [
        {
          id: 'app-store',
          type: 'billing_route_confusion',
          axis: 'path',
          severity: 'low',
          summary: `${r.name} bought in the app is billed by Apple.`,
          source_ids: ['s1'],
        },
      ];
      return r;
    });
    const report = computeReport(rs, { today });
    assert.deepEqual(report.shared_sentences, []);
    assert.deepEqual(
      report.templated_sentences.map((s) => s.sentence),
      ['{service} bought in the app is billed by Apple'],
    );
  });

  test('prices are counted dated, and those read more than twelve months ago are counted as old', () => {
    const r = record('a');
    r.sources.push(readHelp);
    r.plans = [
      {
        name: 'New',
        price: { amount_minor: 999, currency: 'USD', as_of: '2026-11-01', source_id: 's2' },
        billing_period: 'P1M',
        commitment: null,
      },
      {
        name: 'Old',
        price: { amount_minor: 899, currency: 'USD', as_of: '2025-10-31', source_id: 's2' },
        billing_period: 'P1M',
        commitment: null,
      },
    ];
    assert.deepEqual(computeReport([r], { today }).prices, { total: 2, undated: 0, older_than_12_months: 1 });
  });

  test('twelve months to the day is not yet old; a day later it is', () => {
    assert.equal(isStalePrice('2025-11-26', today), false);
    assert.equal(isStalePrice('2025-11-25', today), true);
  });

  test('sentences split at full stops and line breaks and ignore short fragments', () => {
    assert.deepEqual(sentences('Open Settings. Then Billing!\nCancel the plan now? OK.'), [
      'Open Settings',
      'Then Billing',
      'Cancel the plan now',
    ]);
  });

  test('the printed report names every figure, and says when no link checks are known', () => {
    const text = formatReport(computeReport([record('a')], { today, rightsRegions: ['US'] }));
    for (const label of [
      'records: 1',
      'steps resting on a read official help article: 0 (0.0%)',
      'direct cancel link: 1 (100.0%)',
      'prices: 0 dated and sourced, 0 undated',
      'rights sections: US',
      'links checked: unknown',
      'sentences shared by 5+ records: 0',
    ]) {
      assert.ok(text.includes(label), `missing "${label}" in:\n${text}`);
    }
  });

  test('link-check figures are printed with the day of the last check', () => {
    const text = formatReport(
      computeReport([record('a')], {
        today,
        links: {
          total: 10,
          checked: 8,
          last_checked_at: '2026-11-24T03:00:00.000Z',
          oldest_checked_at: '2026-11-17T03:00:00.000Z',
          outcomes: { ok: 7, broken: 1 },
        },
      }),
    );
    assert.ok(
      text.includes(
        'links checked: 8 of 10 (80.0%), between 2026-11-17T03:00:00.000Z and 2026-11-24T03:00:00.000Z: broken 1, ok 7',
      ),
      text,
    );
  });

  test('the report says why link checks are unknown, and that none ran when none did', () => {
    const unknown = formatReport(computeReport([record('a')], { today, linksUnknownReason: 'no database at x' }));
    assert.ok(unknown.includes('links checked: unknown (no database at x)'), unknown);
    const none = formatReport(
      computeReport([record('a')], {
        today,
        links: { total: 3, checked: 0, last_checked_at: null, oldest_checked_at: null, outcomes: {} },
      }),
    );
    assert.ok(none.includes('links checked: 0 of 3 (no check recorded yet)'), none);
  });
});

describe('the rights files', () => {
  const good = () => ({
    region: 'US',
    name: 'the United States',
    statements: [
      { id: 'dispute', topic: 'card_dispute', text: 'Write to the card issuer within 60 days.', source_ids: ['s1'] },
    ],
    sources: [
      {
        id: 's1',
        kind: 'regulator',
        publisher: 'CFPB',
        title: 'How do I dispute a charge?',
        url: 'https://www.consumerfinance.gov/ask-cfpb/dispute',
        confirmed: true,
        read_at: '2026-11-26',
      },
    ],
  });
  const issues = (json: unknown, file = 'catalog/rights/US.json') =>
    validateRights(file, json).issues.map((i) => `${i.path}: ${i.message}`);

  test('a statement resting on a regulator page that was read is accepted', () => {
    assert.deepEqual(issues(good()), []);
  });

  test('a statement may rest on a public body or a consumer organisation that was read', () => {
    for (const kind of ['public_body', 'consumer_body', 'legislation', 'court']) {
      const r = good();
      r.sources[0]!.kind = kind;
      assert.deepEqual(issues(r), [], kind);
    }
  });

  test('a rights statement cannot rest on a company page, a blog, news or an unread page', () => {
    for (const kind of ['third_party_guide', 'official_help', 'news']) {
      const r = good();
      r.sources[0]!.kind = kind;
      assert.ok(
        issues(r).some((i) => i.startsWith('sources[0].kind:')),
        kind,
      );
    }
    const unread = good();
    unread.sources[0] = { ...unread.sources[0]!, confirmed: false, read_at: null as unknown as string };
    assert.ok(issues(unread).some((i) => i.startsWith('sources[0].confirmed:')));
  });

  test('a statement citing an unknown source, or a file named for another region, is refused', () => {
    const r = good();
    r.statements[0]!.source_ids = ['s9'];
    assert.ok(issues(r).some((i) => i.startsWith('statements[0].source_ids:')));
    assert.ok(issues(good(), 'catalog/rights/GB.json').some((i) => i.startsWith('region:')));
  });
});

describe('the evidence of reading', () => {
  const source: Source = { ...readHelp, id: 's1' };
  const evidence = (page: Record<string, unknown>) => ({
    searches: [],
    read: [{ url: source.url!, title: 'Cancel', read_at: '2026-11-26', ...page }],
  });

  test('a confirmed source read on that day on the service’s own site passes', () => {
    assert.deepEqual(unreadConfirmed([source], evidence({})), []);
  });

  test('a page of another market or off the service’s domain never confirms, though it was read', () => {
    assert.equal(unreadConfirmed([source], evidence({ other_market: true })).length, 1);
    assert.equal(unreadConfirmed([source], evidence({ off_domain: true })).length, 1);
    assert.equal(unreadConfirmed([source], evidence({ read_at: '2026-11-25' })).length, 1);
    assert.equal(unreadConfirmed([source], { searches: [], read: [] }).length, 1);
  });
});
