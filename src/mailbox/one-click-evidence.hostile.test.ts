/**
 * Forged evidence: a spammer writes the whole message, Authentication-Results fields included,
 * except the one the receiving server puts on top. None of these may unlock one-click, and no
 * value, however broken, may make the check throw.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { oneClickWithheld } from './one-click-evidence.ts';

const COVERING = 'from:list-unsubscribe:list-unsubscribe-post';
const sig = (d: string, extra = '') =>
  `v=1; a=rsa-sha256; d=${d}; s=s1; h=${COVERING}; bh=Ym9keQ==; b=QUJDREVGR0hJSktM${extra}`;

test('a forged pass below the receiving server’s own field is not evidence', () => {
  assert.equal(
    oneClickWithheld(
      ['mx.example.net; dkim=none', 'mx.example.net; dkim=pass header.d=bank.example'],
      [sig('bank.example')],
      'bank.example',
    ),
    'dkim_failed',
  );
  assert.equal(
    oneClickWithheld(
      ['mx.example.net; spf=pass smtp.mailfrom=bank.example', 'mx.example.net; dkim=pass header.d=bank.example'],
      [sig('bank.example')],
      'bank.example',
    ),
    'unauthenticated',
  );
});

test('a pass hidden in a comment, a quoted reason or a property value is not a result', () => {
  for (const value of [
    'mx.example.net; dkim=fail (dkim=pass header.d=bank.example) header.d=bank.example',
    'mx.example.net; dkim=fail reason="dkim=pass" header.d=bank.example',
    'mx.example.net; spf=fail smtp.mailfrom="x; dkim=pass header.d=bank.example"',
    'mx.example.net (; dkim=pass header.d=bank.example); dkim=fail',
  ]) {
    assert.notEqual(oneClickWithheld([value], [sig('bank.example')], 'bank.example'), null, value);
  }
});

test('a pass for a look-alike or parent domain does not align', () => {
  for (const [d, from] of [
    ['bank.example.evil.test', 'bank.example'],
    ['bank-example.test', 'bank.example'],
    ['example', 'bank.example'],
    ['co.uk', 'bank.co.uk'],
    ['xn--bnk-sna.example', 'bank.example'],
  ] as const) {
    assert.equal(oneClickWithheld([`mx.example.net; dkim=pass header.d=${d}`], [sig(d)], from), 'not_aligned', d);
  }
});

test('signatures that are not well formed are not evidence', () => {
  const ar = ['mx.example.net; dkim=pass header.d=bank.example'];
  for (const s of [
    `${sig('bank.example')}; d=bank.example`, // a tag twice invalidates the whole list (RFC 6376 §3.2)
    'v=1; a=rsa-sha256; s=s1; h=list-unsubscribe:list-unsubscribe-post; b=AAAAAAAA', // no d=
    'v=1; d=bank.example; b=AAAAAAAA', // no h=
    'garbage without tags',
    '',
  ]) {
    assert.equal(oneClickWithheld(ar, [s], 'bank.example'), 'list_headers_unsigned', s);
  }
});

test('a short header.b prefix does not pick a signature; it falls back to header.d', () => {
  const covering = sig('bank.example');
  const other = `v=1; d=bank.example; s=s2; h=from; b=QUJDREVGR0hJSktMzzz`;
  // "QUJD" matches both: too short to tell them apart, so both are candidates and one does not cover
  assert.equal(
    oneClickWithheld(
      ['mx.example.net; dkim=pass header.d=bank.example header.b=QUJD'],
      [covering, other],
      'bank.example',
    ),
    'list_headers_unsigned',
  );
});

test('hostile values never throw and never unlock one-click', () => {
  let x = 7;
  const rnd = (n: number) => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 8) % n;
  };
  const pieces = [
    'dkim',
    '=',
    'pass',
    ';',
    '(',
    ')',
    '"',
    '\\',
    ' ',
    'header.d',
    'header.b',
    '.',
    '@',
    'bank.example',
    '\r\n\t',
    '\u0000',
    '\uFFFD',
    'x'.repeat(9000),
    'h=',
    'list-unsubscribe',
    ':',
    'd=',
  ];
  const junk = () => Array.from({ length: rnd(30) }, () => pieces[rnd(pieces.length)]).join('');
  for (let i = 0; i < 3000; i++) {
    const ar = Array.from({ length: rnd(3) }, junk);
    const sigs = Array.from({ length: rnd(3) }, junk);
    const out = oneClickWithheld(ar, sigs, rnd(2) ? 'bank.example' : junk());
    // Random text can spell out real evidence; only a top field with a pass may unlock it.
    if (out === null) assert.match(ar[0] ?? '', /dkim\s*=\s*pass/i);
  }
  assert.equal(oneClickWithheld(['x'.repeat(100_000)], ['y'.repeat(100_000)], 'bank.example'), 'unauthenticated');
  assert.equal(
    oneClickWithheld(
      [`mx; ${'dkim=fail; '.repeat(5000)}dkim=pass header.d=bank.example`],
      [sig('bank.example')],
      'bank.example',
    ),
    'unauthenticated',
  );
});
