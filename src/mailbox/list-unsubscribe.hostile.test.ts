/**
 * Malformed and hostile header blocks, each built as raw bytes and sent through parseMessage,
 * so postal-mime's unfolding and RFC 2047 decoding are part of what is tested. Every case names
 * one trick; the expected result is exact, and parseMessage must never throw.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_HEADER_BLOCK, parseMessage } from './headers.ts';
import type { ParsedMessage } from './types.ts';

const FROM = 'From: News <news@a.example>';
// The receiving server's verdict on a signature of a.example covering both list headers: what
// one-click needs (one-click-evidence.ts). These cases are about the list headers themselves.
const SIGNED = [
  'Authentication-Results: mx.example.net; dkim=pass header.d=a.example header.s=s1',
  'DKIM-Signature: v=1; a=rsa-sha256; d=a.example; s=s1; h=from:list-unsubscribe:list-unsubscribe-post; bh=AAAA; b=BBBBBBBB',
];

/** Parse a header block given as lines (joined with CRLF and ended by an empty line) or bytes. */
function parse(block: string[] | Buffer): Promise<ParsedMessage> {
  const headers = Array.isArray(block) ? Buffer.from(`${block.join('\r\n')}\r\n\r\n`, 'utf8') : block;
  return parseMessage({ uid: 7, mailbox: 'INBOX', junk: false, seen: true, headers });
}

async function methodsOf(...lines: string[]) {
  return (await parse([...SIGNED, FROM, ...lines])).methods;
}

test('commas inside a bracketed URL stay part of it', async () => {
  const m = await methodsOf('List-Unsubscribe: <https://a.example/u?lists=1,2,3&t=a,b>, <mailto:u@a.example>');
  assert.deepEqual(m.http, ['https://a.example/u?lists=1,2,3&t=a,b']);
  assert.deepEqual(
    m.mailto.map((x) => x.to),
    ['u@a.example'],
  );
});

test('missing brackets: one whole valid https or mailto URI is accepted', async () => {
  assert.deepEqual((await methodsOf('List-Unsubscribe: https://a.example/u?x=1')).http, ['https://a.example/u?x=1']);
  assert.deepEqual(
    (await methodsOf('List-Unsubscribe:   mailto:u@a.example?subject=stop  ')).mailto.map((x) => x.uri),
    ['mailto:u@a.example?subject=stop'],
  );
});

test('missing brackets: http:, two bare URIs, or trailing text are refused', async () => {
  for (const value of [
    'http://a.example/u',
    'https://a.example/u, mailto:u@a.example',
    'https://a.example/u,mailto:u@a.example',
    'https://a.example/u https://b.example/u',
    'https://a.example/u (click here)',
    'mailto:u@a.example, <https://a.example/u>',
  ]) {
    const m = await methodsOf(`List-Unsubscribe: ${value}`);
    assert.deepEqual(m, { one_click: null, http: [], mailto: [] }, value);
  }
});

test('a folded header, even folded inside a URL, is unfolded and the URL rejoined', async () => {
  const m = await methodsOf(
    'List-Unsubscribe: <https://a.example/unsub/\r\n abc?t=1>,\r\n\t<mailto:u@a.example>',
    'List-Unsubscribe-Post:\r\n List-Unsubscribe=One-Click',
  );
  assert.deepEqual(m.http, ['https://a.example/unsub/abc?t=1']);
  assert.equal(m.one_click, 'https://a.example/unsub/abc?t=1');
  assert.equal(m.mailto.length, 1);
});

test('RFC 2047 encoded words in From and Subject are decoded', async () => {
  const msg = await parse([
    'From: =?UTF-8?B?w5xiZXIgTmV3cw==?= <News@A.Example>',
    'Subject: =?iso-8859-1?Q?Caf=E9_du_jour?= =?UTF-8?Q?_=E2=98=95?=',
    'List-Unsubscribe: <https://a.example/u>',
  ]);
  assert.deepEqual(msg.from, { name: 'Über News', address: 'News@A.Example' });
  assert.equal(msg.subject, 'Café du jour ☕');
});

test('a List-Unsubscribe field that is entirely one encoded word is decoded first', async () => {
  const m = await methodsOf('List-Unsubscribe: =?utf-8?B?PGh0dHBzOi8vYS5leGFtcGxlL3U+?=');
  assert.deepEqual(m.http, ['https://a.example/u']);
});

test('duplicate List-Unsubscribe fields: URIs of both are kept, but no one-click', async () => {
  const m = await methodsOf(
    'List-Unsubscribe: <https://evil.example/first>',
    'List-Unsubscribe: <https://a.example/signed>, <mailto:u@a.example>',
    'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
  );
  assert.deepEqual(m.http, ['https://evil.example/first', 'https://a.example/signed']);
  assert.equal(m.mailto.length, 1);
  assert.equal(m.one_click, null);
});

test('duplicate From fields: the first one is the sender', async () => {
  const msg = await parse([
    'From: first@a.example',
    'From: second@b.example',
    'List-Unsubscribe: <https://a.example/u>',
  ]);
  assert.equal(msg.from?.address, 'first@a.example');
});

test('javascript:, data:, file:, ftp: and unknown schemes are refused; good items survive', async () => {
  const m = await methodsOf(
    'List-Unsubscribe: <javascript:alert(1)>, <JavaScript:alert(2)>, <data:text/html,<b>x</b>>, <https://a.example/ok>',
  );
  // the data: URI contains '<', which ends the field per the nested-bracket rule, so 'ok' is lost too
  assert.deepEqual(m.http, []);
  const m2 = await methodsOf(
    'List-Unsubscribe: <javascript:alert(1)>, <data:text/plain;base64,SGk=>, <file:///etc/passwd>, <ftp://a.example/u>, <gopher://a.example/>, <https://a.example/ok>',
    'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
  );
  assert.deepEqual(m2, { one_click: 'https://a.example/ok', http: ['https://a.example/ok'], mailto: [] });
});

test('an unterminated < drops the rest of the field, not what came before', async () => {
  assert.deepEqual((await methodsOf('List-Unsubscribe: <https://a.example/u')).http, []);
  assert.deepEqual((await methodsOf('List-Unsubscribe: <https://a.example/ok>, <https://b.example/u')).http, [
    'https://a.example/ok',
  ]);
});

test('nested angle brackets are refused', async () => {
  assert.deepEqual((await methodsOf('List-Unsubscribe: <<https://a.example/u>>')).http, []);
  assert.deepEqual((await methodsOf('List-Unsubscribe: <https://a.example/<u>>')).http, []);
});

test('text after a URL without a comma ends the field (RFC 2369 §2)', async () => {
  const m = await methodsOf('List-Unsubscribe: <https://a.example/u> <https://b.example/u>, <mailto:u@a.example>');
  assert.deepEqual(m, { one_click: null, http: ['https://a.example/u'], mailto: [] });
});

test('a 100 KB List-Unsubscribe value is ignored and the rest of the message still parses', async () => {
  const huge = `<https://a.example/${'a'.repeat(100 * 1024)}>`;
  const msg = await parse([FROM, `List-Unsubscribe: ${huge}`, 'List-Id: <list.a.example>', 'Subject: hi']);
  assert.deepEqual(msg.methods, { one_click: null, http: [], mailto: [] });
  assert.equal(msg.listId, 'list.a.example');
  assert.equal(msg.subject, 'hi');
  assert.equal(msg.from?.address, 'news@a.example');
});

test('a 100 KB unrelated header does not hide the List-Unsubscribe field', async () => {
  const m = await methodsOf(`X-Filler: ${'x'.repeat(100 * 1024)}`, 'List-Unsubscribe: <https://a.example/u>');
  assert.deepEqual(m.http, ['https://a.example/u']);
});

test(`a block larger than ${MAX_HEADER_BLOCK} bytes is cut at a line end, fields before the cut survive`, async () => {
  const lines = [FROM, 'List-Unsubscribe: <https://a.example/u>'];
  for (let i = 0; i < 400; i++) lines.push(`X-Pad-${i}: ${'p'.repeat(1000)}`);
  lines.push('Subject: after the cut');
  const msg = await parse(lines);
  assert.deepEqual(msg.methods.http, ['https://a.example/u']);
  assert.equal(msg.subject, null);
});

test('NUL and control bytes inside a URL refuse it', async () => {
  const block = Buffer.concat([
    Buffer.from(`${FROM}\r\nList-Unsubscribe: <https://a.example/u`),
    Buffer.from([0x00, 0x01]),
    Buffer.from('x>, <mailto:u@a.example?subject=a\x07b>\r\n\r\n'),
  ]);
  const msg = await parse(block);
  assert.deepEqual(msg.methods, { one_click: null, http: [], mailto: [] });
  assert.equal(msg.from?.address, 'news@a.example');
});

test('binary garbage never throws and yields an empty message', async () => {
  let seed = 42;
  const bytes = Buffer.alloc(64 * 1024);
  for (let i = 0; i < bytes.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    bytes[i] = seed >> 16;
  }
  for (const block of [
    bytes,
    Buffer.alloc(4096, 0xff),
    Buffer.alloc(4096, 0),
    Buffer.alloc(0),
    Buffer.from('\r\n\r\n'),
  ]) {
    const msg = await parse(block);
    assert.deepEqual(msg.methods, { one_click: null, http: [], mailto: [] });
    assert.equal(msg.from, null);
    assert.equal(msg.listId, null);
    assert.equal(msg.date, null);
    assert.deepEqual(msg.auth, { dkim: 'unknown', spf: 'unknown', dmarc: 'unknown' });
    assert.deepEqual([msg.uid, msg.mailbox, msg.seen, msg.junk], [7, 'INBOX', true, false]);
  }
});

test('a truncated block (cut mid-field, no final CRLF) still parses what is complete', async () => {
  const msg = await parse(Buffer.from(`${FROM}\r\nList-Unsubscribe: <https://a.example/u>, <mailto:u@a.exa`));
  assert.deepEqual(msg.methods.http, ['https://a.example/u']);
  assert.deepEqual(msg.methods.mailto, []);
});

test('mailto with cc or bcc is refused; the https link beside it is kept', async () => {
  const m = await methodsOf(
    'List-Unsubscribe: <mailto:u@a.example?cc=boss@corp.example>, <mailto:v@a.example?BCC=x@b.example&subject=s>, <https://a.example/u>',
  );
  assert.deepEqual(m, { one_click: null, http: ['https://a.example/u'], mailto: [] });
});

test('mailto with several recipients, in the path or as to=, is refused', async () => {
  const m = await methodsOf(
    'List-Unsubscribe: <mailto:u@a.example,victim@b.example>, <mailto:u@a.example%2Cvictim@b.example>, <mailto:u@a.example?to=victim@b.example>',
  );
  assert.deepEqual(m.mailto, []);
});

test('a Post header beside only a mailto gives no one-click', async () => {
  const m = await methodsOf(
    'List-Unsubscribe: <mailto:u@a.example?subject=unsubscribe>',
    'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
  );
  assert.equal(m.one_click, null);
  assert.deepEqual(m.mailto, [
    { uri: 'mailto:u@a.example?subject=unsubscribe', to: 'u@a.example', subject: 'unsubscribe', body: null },
  ]);
});

test('an http: (not https) URI with a Post header is not one-click', async () => {
  const m = await methodsOf(
    'List-Unsubscribe: <http://a.example/u>',
    'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
  );
  assert.deepEqual(m, { one_click: null, http: ['http://a.example/u'], mailto: [] });
});

test('an upper-case Post value LIST-UNSUBSCRIBE=ONE-CLICK still counts', async () => {
  const m = await methodsOf(
    'List-Unsubscribe: <https://a.example/u>',
    'LIST-UNSUBSCRIBE-POST: LIST-UNSUBSCRIBE=ONE-CLICK',
  );
  assert.equal(m.one_click, 'https://a.example/u');
});

test('whitespace variants: padding and tabs are fine, spaces inside the Post value are not', async () => {
  const padded = await methodsOf(
    'List-Unsubscribe:\t  <https://a.example/u>  ,\t <mailto:u@a.example>   ',
    'List-Unsubscribe-Post:    List-Unsubscribe=One-Click   \t',
  );
  assert.deepEqual(padded.http, ['https://a.example/u']);
  assert.equal(padded.mailto.length, 1);
  assert.equal(padded.one_click, 'https://a.example/u');
  const spaced = await methodsOf(
    'List-Unsubscribe: <https://a.example/u>',
    'List-Unsubscribe-Post: List-Unsubscribe = One-Click',
  );
  assert.equal(spaced.one_click, null);
});

test('comments between items are skipped, even with brackets and commas inside them', async () => {
  const m = await methodsOf(
    'List-Unsubscribe: (web, <not-this>) <https://a.example/u> (nested (comment), too) , (mail) <mailto:u@a.example>',
  );
  assert.deepEqual(m.http, ['https://a.example/u']);
  assert.deepEqual(
    m.mailto.map((x) => x.to),
    ['u@a.example'],
  );
});

test('Date: garbage gives null; Subject: capped at 200 characters, controls flattened', async () => {
  const msg = await parse([
    FROM,
    'Date: yesterday-ish',
    `Subject: ${'é'.repeat(300)}`,
    'List-Unsubscribe: <https://a.example/u>',
  ]);
  assert.equal(msg.date, null);
  assert.equal(msg.subject, 'é'.repeat(200));
  const tabbed = await parse([FROM, 'Subject: a\tb   c ', 'Date: Tue, 1 Apr 2025 10:00:00 +0200']);
  assert.equal(tabbed.subject, 'a b c');
  assert.equal(tabbed.date?.toISOString(), '2025-04-01T08:00:00.000Z');
});

test('a From without a usable address gives no sender', async () => {
  for (const from of ['From: Just A Name', 'From: <>', 'From: undisclosed-recipients:;', 'From: a@b']) {
    assert.equal((await parse([from, 'List-Unsubscribe: <https://a.example/u>'])).from, null, from);
  }
});

test('list headers and auth are read through parseMessage', async () => {
  const msg = await parse([
    FROM,
    'List-Id: "A News" <News.A.Example>',
    'Authentication-Results: mx.example.net;\r\n dkim=pass header.d=a.example;\r\n spf=fail smtp.mailfrom=a.example;\r\n dmarc=pass',
  ]);
  assert.deepEqual([msg.listId, msg.listName], ['news.a.example', 'A News']);
  assert.deepEqual(msg.auth, { dkim: 'pass', spf: 'fail', dmarc: 'pass' });
});
