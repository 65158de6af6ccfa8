import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { keepTickShape } from './tick-shape.ts';

/**
 * A process that calls nextTick, runs the memory-reducing collection main.ts runs after start
 * (from a timer, with no entry queued), calls nextTick again and prints the state of V8's memory
 * for each key nextTick's entry literal defines (%DebugPrint's feedback vector).
 */
const CHILD = `
import { keepTickShape } from ${JSON.stringify(join(import.meta.dirname, 'tick-shape.ts'))};
if (process.argv[1] === 'keep' && !keepTickShape()) throw new Error('no entry caught');
const ticks = async (n) => { for (let i = 0; i < n; i++) await new Promise((r) => process.nextTick(r)); };
await ticks(200);
await new Promise((r) => setTimeout(r, 5));
await new Promise((r) => setTimeout(() => { gc({ type: 'major', execution: 'sync', flavor: 'last-resort' }); r(); }, 5));
await ticks(200);
new Function('f', '%DebugPrint(f)')(process.nextTick);
`;

function literalStates(keep: boolean): string[] {
  const out = spawnSync(
    process.execPath,
    ['--allow-natives-syntax', '--expose-gc', '--input-type=module', '-e', CHILD, keep ? 'keep' : 'plain'],
    { encoding: 'utf8' },
  );
  assert.equal(out.status, 0, out.stderr);
  return [...out.stdout.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]!);
}

describe("keeping nextTick's fast path", () => {
  test('after a memory-reducing collection, nextTick defines its entries without the runtime', () => {
    const states = literalStates(true);
    assert.ok(states.length >= 4, `the entry's keys were found in the feedback: ${states}`);
    assert.ok(!states.includes('MEGAMORPHIC'), `states: ${states}`);
  });

  test('without it, the same collection sends nextTick to the slow path (the test can see the difference)', () => {
    // If this fails, the Node in use no longer loses the fast path and tick-shape.ts can go.
    assert.ok(literalStates(false).includes('MEGAMORPHIC'));
  });

  test('catches one entry and keeps it; calling again changes nothing', () => {
    assert.equal(keepTickShape(), true);
    assert.equal(keepTickShape(), true);
  });
});
