import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dateMs, fastDateMs } from './date.ts';

const v8 = (s: string) => new Date(s).getTime();
const same = (a: number, b: number) => (Number.isNaN(a) && Number.isNaN(b)) || a === b;

/** RFC 5322 dates as MTAs write them, over 1970–2099, every zone offset shape. */
function generated(n: number, seed = 1): string[] {
  let x = seed;
  const rand = (k: number) => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x % k;
  };
  const pad = (v: number) => String(v).padStart(2, '0');
  const days = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  return Array.from({ length: n }, () => {
    const dow = rand(3) === 0 ? '' : `${days[rand(7)]}, `;
    const day = 1 + rand(31);
    const zone = `${rand(2) ? '+' : '-'}${pad(rand(15))}${pad(rand(4) * 15)}`;
    return `${dow}${rand(2) ? day : pad(day)} ${months[rand(12)]} ${1970 + rand(130)} ${pad(rand(24))}:${pad(rand(60))}:${pad(rand(60))} ${zone}`;
  });
}

test('the fast path reads common dates exactly as new Date does', () => {
  let fast = 0;
  for (const s of generated(20_000)) {
    const got = fastDateMs(s);
    if (got !== null) {
      fast++;
      assert.equal(got, v8(s), s);
    }
    assert.ok(same(dateMs(s), v8(s)), s);
  }
  // days 29–31 go to new Date on purpose; everything else of this shape is read fast
  assert.ok(fast > 20_000 * 0.85, `only ${fast} of 20000 on the fast path`);
});

test('values outside the one shape fall back to new Date, quirks included', () => {
  const odd = [
    'Sat, 31 Feb 2026 10:00:00 +0000', // rolls over into March
    'Fri, 13 Nov 2026 23:59:60 +0000',
    'Fri, 13 Nov 2026 24:00:00 +0000',
    'Fri, 13 Nov 26 08:12:33 +0000', // two-digit year
    'Fri, 13 Nov 0099 08:12:33 +0000',
    'Fri, 13 Nov 2026 08:12:33 GMT',
    'Fri, 13 Nov 2026 08:12:33 +0000 (UTC)',
    'Fri, 13 Nov 2026 8:2:3 +0000',
    'Fri,13 Nov 2026 08:12:33 +0000',
    'Fri, 13 nov 2026 08:12:33 -0730',
    'Fri, 13 Nov 2026 08:12:33 +00:00',
    'Fri, 13 Nov 2026 08:12:33 +9999',
    'Fri, 13 Nov 2026 08:12:33 +0099',
    'Xyz, 13 Nov 2026 08:12:33 +0000',
    'Fri, 13 Nov 2026 08:12:33 +0000x',
    'Fri, 00 Nov 2026 08:12:33 +0000',
    'Fri, 13 Nov 2026 08:60:33 +0000',
    '13 Nov 2026 08:12 +0000',
    '2026-11-13T08:12:33Z',
    '',
    'not a date',
  ];
  for (const s of odd) {
    assert.equal(fastDateMs(s), null, s);
    assert.ok(same(dateMs(s), v8(s)), s);
  }
});

test('mutated dates: the fast path never disagrees with new Date', () => {
  const alphabet = '0123456789 :+-,ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz()\t.';
  let x = 7;
  const rand = (k: number) => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x % k;
  };
  for (const base of generated(3000, 3)) {
    let s = base;
    for (let k = 0, edits = 1 + rand(3); k < edits; k++) {
      const at = rand(s.length + 1);
      const c = alphabet[rand(alphabet.length)]!;
      const op = rand(3);
      s =
        op === 0
          ? s.slice(0, at) + c + s.slice(at)
          : op === 1
            ? s.slice(0, at) + s.slice(at + 1)
            : s.slice(0, at) + c + s.slice(at + 1);
    }
    const got = fastDateMs(s);
    if (got !== null) assert.equal(got, v8(s), JSON.stringify(s));
    assert.ok(same(dateMs(s), v8(s)), JSON.stringify(s));
  }
});
