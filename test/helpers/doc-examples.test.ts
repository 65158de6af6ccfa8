/**
 * The matcher that holds docs/agents.md's walkthrough to the service: what it lets through and
 * what it refuses, so a walkthrough test cannot pass by matching anything.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { matchJson, parseExamples } from './doc-examples.ts';

describe('matching an answer against the one a document shows', () => {
  test('members shown must be there with those values; others may be', () => {
    assert.deepEqual(matchJson({ a: 1 }, { a: 1, b: 2 }, {}), {});
    assert.equal(matchJson({ a: 1 }, { a: 2 }, {}), null);
    assert.equal(matchJson({ a: 1, c: 3 }, { a: 1 }, {}), null);
    assert.equal(matchJson({ a: 'x' }, { a: 1 }, {}), null);
  });

  test('… matches any part of a string; {name} records it, then must equal it', () => {
    assert.deepEqual(matchJson({ k: 'sk_live_…' }, { k: 'sk_live_abc' }, {}), {});
    assert.equal(matchJson({ k: 'sk_live_…' }, { k: 'at_abc' }, {}), null);
    assert.deepEqual(matchJson({ u: '…/connect?token={t}' }, { u: 'http://h/connect?token=hoc_1' }, {}), {
      t: 'hoc_1',
    });
    assert.equal(matchJson({ id: '{t}' }, { id: 'other' }, { t: 'hoc_1' }), null);
    assert.deepEqual(matchJson({ id: '{t}' }, { id: 'hoc_1' }, { t: 'hoc_1' }), {});
  });

  test('array elements shown match different real elements in any order, capturing from the one that fits', () => {
    const real = [
      { id: 'a', sender: 'x@one' },
      { id: 'b', sender: 'y@two' },
    ];
    assert.deepEqual(matchJson([{ id: '{s}', sender: 'y@two' }], real, {}), { s: 'b' });
    assert.equal(matchJson([{ sender: 'z@three' }], real, {}), null);
    assert.equal(matchJson([{ sender: 'x@one' }, { sender: 'x@one' }], real, {}), null);
  });

  test('a document is read as request and answer pairs, poll marked', () => {
    const md = [
      '```http poll',
      'POST /x',
      'Content-Type: application/json',
      '',
      '{"a": 1}',
      '```',
      '',
      '```http',
      'HTTP/1.1 303 See Other',
      'Location: /y',
      '```',
    ].join('\n');
    const [ex] = parseExamples(md);
    assert.deepEqual(ex!.request, {
      method: 'POST',
      path: '/x',
      headers: [['content-type', 'application/json']],
      body: '{"a": 1}',
      poll: true,
    });
    assert.deepEqual(ex!.response, { status: 303, headers: [['location', '/y']], body: '' });
  });
});
