import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeBody, normaliseText, notFoundPhrase, readHtml } from './text.ts';

const page = (head: string, body: string) => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

test('the visible text keeps words apart at tags and leaves out scripts, styles, templates and comments', () => {
  const { text } = readHtml(
    page(
      '<title>Cancel</title><style>p { color: red }</style><script>var x = "<p>hidden</p>";</script>',
      `<h1>Cancel your plan</h1><p>Open <b>Account</b></p><p>then Cancel.</p>
       <noscript>Enable JavaScript</noscript><template><p>later</p></template><!-- editor note -->
       <svg><title>icon</title><text>svg text</text></svg><iframe src="/x">fallback</iframe>Done`,
    ),
  );
  assert.equal(text, 'Cancel your plan Open Account then Cancel. Done');
});

test('character references are decoded as a browser does: named (all of HTML5), decimal and hex', () => {
  const { text, title, heading } = readHtml(
    page(
      '<title>Caf&eacute; &ndash; K&uuml;ndigen</title>',
      '<h1>P&aacute;gina no encontrada</h1><p>&euro;9&period;99 &para; &trade; &#8364; &#x20AC; &amp;amp; AT&amp;T&nbsp;plan</p>',
    ),
  );
  assert.equal(title, 'Café – Kündigen');
  assert.equal(heading, 'Página no encontrada');
  assert.equal(text, 'Página no encontrada €9.99 ¶ ™ € € &amp; AT&T plan');
});

test('the title is the page’s own: whitespace collapsed; none when the page has none', () => {
  assert.equal(readHtml(page('<title>\n  Page\tNot   Found\n</title>', '<p>x</p>')).title, 'Page Not Found');
  assert.equal(readHtml(page('', '<p>no title</p>')).title, null);
  // An <svg>'s <title> labels the picture; it is not the page's title.
  assert.equal(readHtml(page('', '<svg><title>Not found</title></svg><p>Billing</p>')).title, null);
});

test('the first h1 or h2 outside hidden elements is the heading, inline tags and all', () => {
  const html = page(
    '',
    '<template><h1>Not found</h1></template><p>intro</p><h2>How to <em>cancel</em>\n your plan</h2><h1>Later</h1>',
  );
  assert.equal(readHtml(html).heading, 'How to cancel your plan');
  assert.equal(readHtml(page('', '<h3>Only a third level</h3>')).heading, null);
});

test('text that only re-stamps dates, times or ids normalises to the same string', () => {
  assert.equal(
    normaliseText('Updated 2026-06-04 12:30, ref #48213 (3)'),
    normaliseText('Updated   2026-06-05 09:10, ref #90001 (4)'),
  );
  assert.equal(normaliseText('Costs €9.99 for a 30-day trial, v2'), 'Costs €9.99 for a 30-day trial, v2');
});

test('a page’s text is the same string however its markup is indented', () => {
  const a = readHtml(page('<title>T</title>', '<main><p>Open Account,</p><p>choose Cancel.</p></main>'));
  const b = readHtml(
    page('\n  <title>T</title>\n', '\n<main>\n  <p>Open Account,</p>\n\n  <p>choose Cancel.</p>\n</main>\n'),
  );
  assert.equal(a.text, b.text);
});

test('not-found phrases are recognised in en, de, fr and es, typographic apostrophes included', () => {
  for (const t of [
    'Page Not Found',
    'Error 404',
    'Sorry, this page doesn’t exist',
    'Seite nicht gefunden',
    'Page introuvable',
    'Página no encontrada',
  ]) {
    assert.ok(notFoundPhrase(t), t);
  }
  assert.equal(notFoundPhrase('How to cancel your membership'), null);
});

test('the body is decoded by the charset of Content-Type, else of <meta charset>, else UTF-8', () => {
  const latin1 = Buffer.from('<p>K\u00fcndigung</p>', 'latin1');
  assert.equal(decodeBody(latin1, 'text/html; charset=ISO-8859-1'), '<p>Kündigung</p>');
  const meta = Buffer.concat([Buffer.from('<meta charset="windows-1252">'), latin1]);
  assert.equal(decodeBody(meta, 'text/html'), '<meta charset="windows-1252"><p>Kündigung</p>');
  assert.equal(decodeBody(Buffer.from('<p>Kündigung</p>'), 'text/html; charset=nonsense'), '<p>Kündigung</p>');
});
