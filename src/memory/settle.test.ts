import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { residentMiB, settleMemory } from './settle.ts';

describe('settling memory after the start', () => {
  test('one memory-reducing collection, with resident memory before and after', () => {
    const calls: unknown[] = [];
    const settled = settleMemory(((o: unknown) => {
      calls.push(o);
    }) as unknown as NodeJS.GCFunction);
    assert.deepEqual(calls, [{ type: 'major', execution: 'sync', flavor: 'last-resort' }]);
    assert.ok(settled && settled.rss_before_mib > 10 && settled.rss_after_mib > 10, 'read from /proc');
  });

  test("with V8's own collector, memory let go of is given back", () => {
    // what main.ts gets with --expose-gc; the test runner does not pass it, so V8's gc is made visible here
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as NodeJS.GCFunction;
    let garbage: Uint8Array[] | null = Array.from({ length: 64 }, () => new Uint8Array(1 << 20).fill(1));
    assert.equal(garbage.length, 64);
    garbage = null;
    const settled = settleMemory(gc)!;
    assert.ok(settled.rss_after_mib < settled.rss_before_mib - 32, JSON.stringify(settled));
  });

  test('without --expose-gc nothing is done', () => {
    assert.equal(settleMemory(undefined), null);
  });

  test('resident memory is a positive number of MiB on Linux', () => {
    assert.ok(residentMiB() > 10);
  });
});
