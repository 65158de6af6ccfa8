import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sequenceSet, splitSet, uidRanges } from './uid-sets.ts';

test('sequenceSet names exactly the given UIDs, runs as ranges', () => {
  assert.equal(sequenceSet([1, 2, 3, 5, 7, 8]), '1:3,5,7:8');
  assert.equal(sequenceSet([42]), '42');
  assert.equal(sequenceSet([]), '');
});

test('splitSet cuts at commas, never inside a range, and keeps every part', () => {
  const set = sequenceSet(Array.from({ length: 3000 }, (_, i) => i * 2 + 1));
  const parts = splitSet(set, 100);
  assert.ok(parts.every((p) => p.length <= 100));
  assert.equal(parts.join(','), set);
  assert.throws(() => splitSet('1:99999999', 5));
});

test('uidRanges cover 1..UIDNEXT-1 in ascending batches sized by density', () => {
  const dense = uidRanges(1000, 1001, 300);
  assert.deepEqual(
    dense.map((b) => b.set),
    ['1:300', '301:600', '601:900', '901:1000'],
  );
  assert.deepEqual(
    dense.map((b) => b.first),
    [1, 301, 601, 901],
  );
  // 100 messages spread over UIDs up to 10,000: wider ranges, about `size` messages each
  assert.deepEqual(
    uidRanges(100, 10_001, 50).map((b) => b.set),
    ['1:5000', '5001:10000'],
  );
  // without UIDNEXT: one open range
  assert.deepEqual(uidRanges(5, null, 50), [{ set: '1:*', first: 1 }]);
});
