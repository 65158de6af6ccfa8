/** The article checks find what they must: a small article of each wrong kind fails its check. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Capability } from './capabilities.ts';
import { capabilityProblems, citationProblems, optoutSentences, ownLinks } from './claims.ts';

const everything = () => true;
const codes = (ps: { code: string }[]) => ps.map((p) => p.code);

describe('capability check', () => {
  test('a capability whose route the app does not serve fails', () => {
    const registry = {
      built: [{ id: 'guides', route: 'GET /services', names: /\bcancellation guides?\b/i }] as Capability[],
      notBuilt: [],
    };
    const body = 'optout has cancellation guides for many services.\n';
    assert.deepEqual(codes(capabilityProblems(body, everything, registry)), []);
    const without = (_m: string, url: string) => url !== '/services';
    assert.deepEqual(codes(capabilityProblems(body, without, registry)), ['UNSERVED_CAPABILITY']);
  });

  test('naming something optout does not do fails, unless the sentence denies it', () => {
    assert.deepEqual(codes(capabilityProblems('optout sends you a weekly digest.\n', everything)), []);
    const none = () => false;
    assert.deepEqual(codes(capabilityProblems('optout sends you a weekly digest.\n', none)), ['NOT_BUILT']);
    assert.deepEqual(
      codes(capabilityProblems('optout has a free tier of three scans.\n', none)).includes('NOT_BUILT'),
      true,
    );
    assert.deepEqual(codes(capabilityProblems('optout never watches your mail afterwards.\n', none)), []);
  });

  test('a promise of something to come fails', () => {
    assert.deepEqual(codes(capabilityProblems('optout will support Outlook soon.\n', everything)), ['PROMISE']);
  });

  test('Microsoft sign-in must say it depends on the site being set up', () => {
    assert.deepEqual(codes(capabilityProblems('With optout you sign in with Microsoft.\n', everything)), [
      'CONDITION_MISSING',
    ]);
    assert.deepEqual(
      codes(
        capabilityProblems('With optout you sign in with Microsoft where the operator has set it up.\n', everything),
      ),
      [],
    );
  });

  test('sentences under a heading about optout count, others do not', () => {
    const body = '## Gmail\n\nGmail has a digest.\n\n## How optout does it\n\nIt previews a batch. Then it sends.\n';
    assert.deepEqual(optoutSentences(body), ['It previews a batch.', 'Then it sends.']);
  });
});

describe('citation check', () => {
  test('a link to another site without a read date fails; a future or impossible date fails', () => {
    const today = new Date('2026-11-26T12:00:00Z');
    assert.deepEqual(
      citationProblems('Fact ([RFC 2369](https://www.rfc-editor.org/rfc/rfc2369), read 2026-11-26).', today),
      [],
    );
    assert.deepEqual(codes(citationProblems('Fact ([RFC 2369](https://www.rfc-editor.org/rfc/rfc2369)).', today)), [
      'UNCITED_LINK',
    ]);
    assert.deepEqual(codes(citationProblems('Fact ([a](https://a.example), read 2027-01-01).', today)), [
      'BAD_READ_DATE',
    ]);
    assert.deepEqual(codes(citationProblems('Fact ([a](https://a.example), read 2026-13-45).', today)), [
      'BAD_READ_DATE',
    ]);
  });

  test('own links are the ones starting with a slash', () => {
    assert.deepEqual(ownLinks('[a](/services) [b](https://x.example) [c](/blog/x/#y)'), ['/services', '/blog/x/#y']);
  });
});
