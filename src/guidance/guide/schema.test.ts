import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GuideRequest } from './schema.ts';

const issues = (input: unknown) => {
  const r = GuideRequest.safeParse(input);
  assert.equal(r.success, false, 'expected the request to be rejected');
  return r.error!.issues;
};

describe('guide request schema', () => {
  test('accepts a bare slug and every tone', () => {
    assert.ok(GuideRequest.safeParse({ slug: 'netflix' }).success);
    for (const tone of ['neutral', 'reassuring', 'terse']) {
      assert.ok(GuideRequest.safeParse({ slug: 'netflix', options: { tone } }).success, tone);
    }
  });

  test('accepts the BCP 47 tags people send', () => {
    for (const tag of ['en', 'de', 'en-GB', 'de-DE', 'de-AT', 'pt-BR', 'zh-Hant-TW', 'es-419', 'sr-Latn', 'EN-gb']) {
      assert.ok(GuideRequest.safeParse({ slug: 'netflix', options: { locale: tag } }).success, tag);
    }
  });

  test('an unknown tone is rejected at options.tone', () => {
    const [issue] = issues({ slug: 'netflix', options: { tone: 'angry' } });
    assert.deepEqual(issue!.path, ['options', 'tone']);
  });

  test('a garbage locale is rejected at options.locale with a message naming BCP 47', () => {
    for (const locale of ['garbage', 'en_US', 'english please', '', '12', 'de-', '-de', 'x-private', 'a'.repeat(40)]) {
      const found = issues({ slug: 'netflix', options: { locale } });
      assert.ok(found.length >= 1, locale);
      for (const issue of found) {
        assert.deepEqual(issue.path, ['options', 'locale'], locale);
        assert.match(issue.message, /BCP 47/, locale);
      }
    }
  });

  test('a non-string locale is rejected at options.locale', () => {
    assert.deepEqual(issues({ slug: 'netflix', options: { locale: 7 } })[0]!.path, ['options', 'locale']);
  });

  test('unknown fields are rejected, in the body and in options', () => {
    assert.ok(issues({ slug: 'netflix', extra: 1 }).some((i) => i.code === 'unrecognized_keys'));
    const [issue] = issues({ slug: 'netflix', options: { tone: 'terse', style: 'pirate' } });
    assert.equal(issue!.code, 'unrecognized_keys');
    assert.deepEqual(issue!.path, ['options']);
  });

  test('a missing or empty slug is rejected at slug', () => {
    assert.deepEqual(issues({})[0]!.path, ['slug']);
    assert.deepEqual(issues({ slug: '' })[0]!.path, ['slug']);
  });
});
