/**
 * Pages come from strangers and are cut off at the size cap: broken, truncated and adversarial
 * markup must give a sensible reading, never an exception and never text a browser would hide.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readHtml } from './text.ts';

const CAP = 512 * 1024;

test('a quoted ">" inside an attribute stays in the attribute', () => {
  const { text } = readHtml('<a title="1 > 0, so cancel" data-x=\'a>b\'>Cancel</a><p>now</p>');
  assert.equal(text, 'Cancel now');
});

test('markup cut off by the size cap mid-tag, mid-attribute or mid-reference leaks nothing', () => {
  assert.equal(readHtml('<p>Cancel here</p><a href="https://exa').text, 'Cancel here');
  assert.equal(readHtml('<p>Cancel here</p><a href="x" title="1 > 0').text, 'Cancel here');
  assert.equal(readHtml('<p>Cancel here</p><di').text, 'Cancel here');
  assert.equal(readHtml('<p>Price &eur').text, 'Price &eur');
});

test('an unclosed comment, script or style hides the rest of the page, as in a browser', () => {
  assert.equal(readHtml('<p>Shown</p><!-- <p>never closed').text, 'Shown');
  assert.equal(readHtml('<p>Shown</p><script>document.write("<h1>Not found</h1>")').text, 'Shown');
  assert.equal(readHtml('<p>Shown</p><style>p{}</style ><p>after</p>').text, 'Shown after');
  assert.equal(readHtml('<p>Shown</p><script>').heading, null);
});

test('a title or heading spoofed inside a script, comment or template does not count', () => {
  const r = readHtml(
    '<script>"<title>Not found</title><h1>Not found</h1>"</script><!-- <h1>Not found</h1> --><template><h1>Not found</h1></template><h1>Billing</h1>',
  );
  assert.equal(r.title, null);
  assert.equal(r.heading, 'Billing');
});

test('an unclosed heading or title is read up to a bounded length', () => {
  const r = readHtml(`<title>${'Not found '.repeat(50_000)}`);
  assert.ok(r.title!.length <= 1000, String(r.title!.length));
  assert.ok(r.title!.startsWith('Not found'));
  const h = readHtml(`<h1>${'word '.repeat(100_000)}`);
  assert.ok(h.heading!.length <= 1000);
  assert.equal(h.text.split(' ').length, 100_000, 'the body text is all there');
});

test('deeply nested and mismatched tags read through to the end', () => {
  const nested = `${'<div>'.repeat(50_000)}deep${'</span>'.repeat(1000)}${'</div>'.repeat(50_000)}<p>after</p>`;
  assert.equal(readHtml(nested).text, 'deep after');
  assert.equal(readHtml('</svg></template></script><p>visible</p></noscript>').text, 'visible');
  assert.equal(readHtml('<svg><svg><title>x</title></svg><p>inside svg</p></svg><p>out</p>').text, 'out');
});

test('a self-closing <svg/> closes at once; in HTML "/>" closes nothing, as in a browser', () => {
  assert.equal(readHtml('<p>a</p><svg/><p>b</p>').text, 'a b');
  assert.equal(readHtml('<svg><path d="M0"/><title/></svg><p>c</p>').text, 'c');
  assert.equal(readHtml('<p>a</p><script/>var hidden = 1;</script><p>b</p>').text, 'a b');
});

test('a page of nothing but angle brackets, ampersands or invalid references does not throw', () => {
  for (const junk of [
    '<'.repeat(CAP),
    '&'.repeat(CAP),
    '&#'.repeat(CAP / 2),
    '<!'.repeat(CAP / 2),
    '<a '.repeat(CAP / 3),
  ]) {
    const r = readHtml(junk);
    assert.equal(typeof r.text, 'string');
  }
  // Out-of-range and surrogate code points become U+FFFD, as the HTML standard says.
  assert.equal(readHtml('<p>a&#0;b &#x110000; &#xD800;</p>').text, 'a\uFFFDb \uFFFD \uFFFD');
});
