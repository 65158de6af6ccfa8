import assert from 'node:assert/strict';
import { test } from 'node:test';
import { htmlToText } from './html-text.ts';

test('a table row reads as one line, its cells joined', () => {
  assert.equal(
    htmlToText('<table><tr><td>Plan</td><td>Premium</td></tr><tr><th>Total</th><td>$22.99</td></tr></table>'),
    'Plan | Premium\nTotal | $22.99',
  );
});

test('blocks and line breaks become lines; entities are decoded', () => {
  assert.equal(
    htmlToText('<p>Thanks&nbsp;for your payment</p><div>Total:<br>12,99&nbsp;&euro;</div>'),
    'Thanks for your payment\nTotal:\n12,99 €',
  );
});

test('what a reader does not see is left out', () => {
  const html = `<html><head><title>Receipt</title><style>p { color: red }</style></head><body>
<div style="display:none;max-height:0">Save 50% today: only $1.99</div>
<span style="font-size:0">hidden</span><p hidden>also hidden</p><script>var price = "$5";</script>
<p>Was <s>$25.99</s> <del>$24.99</del></p><p>Total $22.99</p></body></html>`;
  assert.equal(htmlToText(html), 'Was\nTotal $22.99');
});

test('elements nested inside a hidden one stay hidden until it closes', () => {
  assert.equal(htmlToText('<div style="display: none"><div>a</div><div>b</div></div><div>shown</div>'), 'shown');
});

test('zero-width preheader padding is removed', () => {
  assert.equal(htmlToText('<p>Receipt&zwnj;&nbsp;&zwnj;&nbsp;&#8203;</p>'), 'Receipt');
});
