import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { makeRecord } from '../../../test/helpers/record.ts';
import { computeFriction } from '../../catalog/friction/compute.ts';
import { type Catalog, loadCatalog } from '../../catalog/load.ts';
import { negotiateLocale } from './locales.ts';
import { Guide, type GuideOptions } from './schema.ts';
import { sourceUrlOf, writeGuide } from './template-writer.ts';

let catalog: Catalog;
before(async () => {
  catalog = await loadCatalog();
});

function guide(slug: string, options: GuideOptions) {
  const entry = catalog.bySlug.get(slug);
  assert.ok(entry, `catalog has ${slug}`);
  return writeGuide(entry.record, entry.friction, options);
}

// Words that only a reassuring guide uses: a terse or neutral one must not contain them.
const REASSURANCE = /normal|good news|proof|take a quick look|doable/i;

describe('template guide writer', () => {
  test('every catalog record gives a schema-valid guide in every tone and framing locale', () => {
    for (const { record, friction } of catalog.entries) {
      for (const tone of ['neutral', 'reassuring', 'terse'] as const) {
        for (const locale of ['en', 'de', 'fr', 'es']) {
          const g = writeGuide(record, friction, { tone, locale });
          const parsed = Guide.safeParse(g);
          assert.ok(parsed.success, `${record.slug} ${tone} ${locale}: ${parsed.error?.message}`);
          assert.equal(g.steps.length, record.steps.length);
          assert.doesNotMatch(g.explanation, /undefined|null|NaN|\$\{/, `${record.slug} ${tone} ${locale}`);
        }
      }
    }
  });

  test('steps and traps are the catalog text, unchanged, with the record links in order', () => {
    const { record } = catalog.bySlug.get('planet-fitness')!;
    for (const locale of ['en', 'de', 'fr', 'es']) {
      const g = guide('planet-fitness', { tone: 'neutral', locale });
      assert.deepEqual(
        g.steps,
        record.steps.map((s, i) => ({ order: i + 1, title: s.title, detail: s.detail ?? null, url: s.url ?? null })),
      );
      assert.deepEqual(
        g.traps,
        record.traps.map((t) => ({ summary: t.summary, how_to_avoid: t.how_to_avoid ?? null, severity: t.severity })),
      );
      assert.equal(g.steps_locale, record.locale);
    }
  });

  test('the same input gives the same guide', () => {
    for (const tone of ['neutral', 'reassuring', 'terse'] as const) {
      assert.deepEqual(guide('netflix', { tone, locale: 'fr-FR' }), guide('netflix', { tone, locale: 'fr-FR' }));
    }
  });

  test('terse is much shorter than neutral: step titles only and one sentence without reassurance', () => {
    for (const slug of ['netflix', 'planet-fitness', 'the-economist', 'deutsche-telekom']) {
      const terse = guide(slug, { tone: 'terse' });
      const neutral = guide(slug, { tone: 'neutral' });
      assert.ok(terse.explanation.length * 2 < neutral.explanation.length, `${slug}: ${terse.explanation}`);
      assert.equal(terse.explanation.match(/\.(\s|$)/g)?.length, 1, terse.explanation);
      assert.doesNotMatch(terse.explanation, REASSURANCE);
      assert.ok(terse.steps.every((s) => s.detail === null));
      assert.deepEqual(
        terse.steps.map((s) => s.title),
        neutral.steps.map((s) => s.title),
      );
    }
  });

  test('reassuring says it is normal, names the tier gently and reminds to keep the confirmation', () => {
    const g = guide('netflix', { tone: 'reassuring' });
    assert.match(g.explanation, /normal/);
    assert.match(g.explanation, /effortless/);
    assert.match(g.explanation, /keep the confirmation email/);
    const hard = guide('planet-fitness', { tone: 'reassuring' });
    assert.match(hard.explanation, /rated hard .*not about you|more about the process than about you/);
    // Planet Fitness records no confirmation type, so the reminder stays general
    assert.match(hard.explanation, /keep whatever confirmation you get/);
  });

  test('neutral states facts without reassurance', () => {
    const g = guide('planet-fitness', { tone: 'neutral' });
    assert.doesNotMatch(g.explanation, REASSURANCE);
    assert.match(g.explanation, /rated hard \(5 out of 10\)/);
    assert.match(g.explanation, /main hurdle is the channel/);
    assert.match(g.explanation, /at least 7 days before the next charge or delivery/);
  });

  test('the explanation uses the record facts: billing routes, terms and retention offers', () => {
    const netflix = guide('netflix', { tone: 'neutral' }).explanation;
    assert.match(netflix, /Apple, Google Play, a phone carrier, or a bundle partner/);
    const telekom = guide('deutsche-telekom', { tone: 'neutral', locale: 'de' }).explanation;
    assert.match(telekom, /Mindestlaufzeit des üblichen Tarifs: 2 Jahre\./);
    assert.match(telekom, /Kündigungsfrist: 1 Monat\./);
    const economist = guide('the-economist', { tone: 'neutral' }).explanation;
    assert.match(economist, /An agent presents offers/);
  });

  test('facts the record does not have are not mentioned', () => {
    const record = makeRecord({ retention: { level: null, source_ids: ['s1'] } });
    record.cancel.confirmation = null;
    record.cancel.access_after_cancel = null;
    const g = writeGuide(record, computeFriction(record), { tone: 'neutral' });
    // only the rating sentence is left (its driver comes from the friction result)
    assert.match(g.explanation, /^Cancelling Example Service is rated [^;]+;[^.]+\.$/);
    assert.doesNotMatch(g.explanation, /save offer|confirmation|access|notice|minimum term|bills you|pitfall/i);
  });

  test('each framing locale frames in its own language and differs from the others', () => {
    const texts = Object.fromEntries(
      ['en', 'de', 'fr', 'es'].map((l) => [l, guide('netflix', { tone: 'neutral', locale: l }).explanation]),
    );
    assert.match(texts.en!, /Cancelling Netflix is rated effortless/);
    assert.match(texts.de!, /Die Kündigung von Netflix wird als „mühelos“ eingestuft \(0,4 von 10\)/);
    assert.match(texts.fr!, /La résiliation de Netflix est jugée «\u00a0sans effort\u00a0» \(0,4 sur 10\)/);
    assert.match(texts.es!, /La baja de Netflix se considera «sin esfuerzo» \(0,4 de 10\)/);
    assert.equal(new Set(Object.values(texts)).size, 4);
    for (const tone of ['reassuring', 'terse'] as const) {
      const byLocale = ['en', 'de', 'fr', 'es'].map((l) => guide('netflix', { tone, locale: l }).explanation);
      assert.equal(new Set(byLocale).size, 4, tone);
    }
    assert.match(guide('netflix', { tone: 'reassuring', locale: 'de' }).explanation, /Bestätigungs-E-Mail/);
    assert.match(guide('netflix', { tone: 'reassuring', locale: 'fr' }).explanation, /e-mail de confirmation/);
    assert.match(guide('netflix', { tone: 'reassuring', locale: 'es' }).explanation, /correo de confirmación/);
  });

  test('a regional locale falls back to its language: de-AT is served as de', () => {
    const g = guide('netflix', { tone: 'neutral', locale: 'de-AT' });
    assert.equal(g.locale, 'de');
    assert.equal(g.explanation, guide('netflix', { tone: 'neutral', locale: 'de' }).explanation);
    assert.equal(g.steps_locale, 'en');
  });

  test('an unsupported language falls back to en and says so: pt-BR is served as en', () => {
    const g = guide('netflix', { tone: 'neutral', locale: 'pt-BR' });
    assert.equal(g.locale, 'en');
    assert.equal(g.explanation, guide('netflix', { tone: 'neutral', locale: 'en' }).explanation);
    assert.equal(negotiateLocale('zh-Hant-TW'), 'en');
    assert.equal(negotiateLocale('FR-ca'), 'fr');
  });

  test('without options the guide is neutral, in the catalog language', () => {
    const g = guide('netflix', { tone: 'neutral' });
    assert.equal(g.tone, 'neutral');
    assert.equal(g.locale, 'en');
    assert.equal(g.writer, 'template');
    assert.equal(g.entry, 'Netflix');
  });

  test('source_url prefers the help article, then the cancel page, an official source, the website', () => {
    assert.equal(guide('netflix', { tone: 'neutral' }).source_url, 'https://help.netflix.com/en/node/407');
    const r = makeRecord();
    assert.equal(sourceUrlOf(r), 'https://www.example.com/account/cancel');
    r.cancel.url = null;
    assert.equal(sourceUrlOf(r), 'https://www.example.com/help');
    r.sources[0]!.kind = 'third_party_index';
    assert.equal(sourceUrlOf(r), 'https://www.example.com');
  });
});
