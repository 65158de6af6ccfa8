/**
 * Receipts come from strangers: huge, malformed and adversarial text, markup and MIME must give
 * a sensible reading in bounded time, never an exception and never a guessed amount.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { htmlToText } from './html-text.ts';
import { messageText } from './message-text.ts';
import { findMoney } from './money.ts';
import { readReceipt } from './receipt.ts';

const service = { name: 'Netflix', aliases: ['Netflix Premium'] };
const crlf = (lines: string[]) => Buffer.from(lines.join('\r\n'));

/** Runs `fn` and fails when it takes longer than `ms` (a regular expression gone quadratic). */
function quick<T>(ms: number, fn: () => T): T {
  const start = performance.now();
  const out = fn();
  const took = performance.now() - start;
  assert.ok(took < ms, `took ${took.toFixed(0)} ms`);
  return out;
}

describe('amount reading under hostile input', () => {
  test('long runs of digit groups, separators and symbols take linear time', () => {
    for (const text of [
      '111 '.repeat(50_000),
      '1,'.repeat(100_000),
      '1.1,'.repeat(50_000),
      '$'.repeat(200_000),
      '€ 1'.repeat(60_000),
      `${'9'.repeat(200_000)} €`,
      '-(-(-$'.repeat(30_000),
    ]) {
      quick(1500, () => findMoney(text));
    }
  });

  test('absurd numbers are not amounts', () => {
    assert.deepEqual(findMoney('$99999999999.99 €1e9 $Infinity $NaN'), []);
  });
});

describe('receipt reading under hostile input', () => {
  test('a receipt padded to the size cap and beyond is read in bounded time', () => {
    const filler = 'Netflix subscription total $1.00 save 5% off from $2 '.repeat(20_000);
    const r = quick(3000, () => readReceipt({ subject: 'Your receipt', text: filler, service }));
    assert.notEqual(r.kind, undefined);
  });

  test('one enormous line of amounts does not go quadratic', () => {
    const text = `Netflix membership payment ${'Total $1,234.56 | '.repeat(20_000)}`;
    quick(3000, () => readReceipt({ subject: 'Receipt', text, service }));
  });

  test('service names with pattern characters are matched literally', () => {
    const r = readReceipt({
      subject: 'Your receipt',
      text: 'C++ (Pro) subscription\nTotal: $5.00',
      service: { name: 'C++ (Pro)', aliases: ['.*', '[a-z]+'] },
    });
    assert.equal(r.kind, 'charge');
    const none = readReceipt({
      subject: 'Your receipt',
      text: 'Other subscription\nTotal: $5.00',
      service: { name: '.*', aliases: [] },
    });
    assert.deepEqual(none, { kind: null, why: 'other_service' });
  });

  test('a receipt whose only amounts are offers has no amount, never a guess', () => {
    const r = readReceipt({
      subject: 'Your Netflix receipt',
      text: 'Netflix membership\nSave $5 today\n20% off: was $19.99, now $15.99\nfrom $6.99/month',
      service,
    });
    assert.deepEqual(r, { kind: 'charge', amount: null, period: null });
  });

  test('empty and whitespace-only messages bill nothing', () => {
    assert.deepEqual(readReceipt({ subject: null, text: '', service }), { kind: null, why: 'not_billing' });
    assert.deepEqual(readReceipt({ subject: '   ', text: '\n\n\t', service }), { kind: null, why: 'not_billing' });
  });
});

describe('markup under hostile input', () => {
  test('20,000 nested hidden elements and an unclosed hidden one', () => {
    const nested = `${'<div style="display:none">'.repeat(20_000)}x${'</div>'.repeat(20_000)}<p>Total $9.99</p>`;
    assert.equal(
      quick(2000, () => htmlToText(nested)),
      'Total $9.99',
    );
    assert.equal(htmlToText('<p>Total $9.99</p><div hidden><p>Total $1.00'), 'Total $9.99');
  });

  test('a hiding style quoted inside another attribute hides nothing', () => {
    assert.equal(htmlToText('<p data-style="display:none" title="display:none">Total $9.99</p>'), 'Total $9.99');
  });

  test('markup cut off mid-tag or mid-attribute leaks nothing of the tag', () => {
    assert.equal(htmlToText('<p>Total $9.99</p><td style="disp'), 'Total $9.99');
    assert.equal(htmlToText('<p>Total $9.99</p><a href="https://x.example/?a=1&amp'), 'Total $9.99');
  });
});

describe('MIME under hostile input', () => {
  test('broken MIME gives text or nothing, never an exception', async () => {
    const broken = [
      crlf([
        'Content-Type: multipart/alternative; boundary="b"',
        '',
        '--b',
        'Content-Type: text/html',
        '',
        '<p>Total $9.99',
      ]),
      crlf([
        'Content-Type: text/plain; charset=x-unknown',
        'Content-Transfer-Encoding: base64',
        '',
        '!!!not base64!!!',
      ]),
      crlf(['Content-Type: multipart/mixed; boundary=', '', '--', '--']),
      Buffer.from(
        `Content-Type: multipart/mixed; boundary=a\r\n\r\n${'--a\r\nContent-Type: multipart/mixed; boundary=a\r\n\r\n'.repeat(500)}`,
      ),
      Buffer.alloc(0),
      Buffer.from([0xff, 0xfe, 0x00, 0x00, 0x0d, 0x0a]),
    ];
    for (const raw of broken) assert.equal(typeof (await messageText(raw)), 'string');
    assert.match(await messageText(broken[0]!), /Total \$9\.99/);
  });

  test('a forwarded receipt inside a message is not read as this message’s receipt', async () => {
    const raw = crlf([
      'Content-Type: multipart/mixed; boundary="m"',
      '',
      '--m',
      'Content-Type: text/plain',
      '',
      'FYI',
      '--m',
      'Content-Type: message/rfc822',
      '',
      'Subject: Your Netflix receipt',
      'Content-Type: text/plain',
      '',
      'Netflix membership. Total: $15.49',
      '--m--',
    ]);
    assert.equal(await messageText(raw), 'FYI');
  });

  test('an HTML part is read in preference to its plain-text twin, quoted-printable decoded', async () => {
    const raw = crlf([
      'Content-Type: multipart/alternative; boundary="a"',
      '',
      '--a',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'View this receipt in a browser.',
      '--a',
      'Content-Type: text/html; charset=utf-8',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      '<table><tr><td>Total</td><td>12,99&nbsp;=E2=82=AC</td></tr></table>',
      '--a--',
    ]);
    assert.equal(await messageText(raw), 'Total | 12,99 €');
  });
});
