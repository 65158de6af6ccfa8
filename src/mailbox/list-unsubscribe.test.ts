/**
 * The List-Unsubscribe parser on well-formed input: RFC 2369 lists, RFC 8058 one-click and
 * RFC 6068 mailto. Malformed and hostile headers live in list-unsubscribe.hostile.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAuthResults } from './auth-results.ts';
import { parseListId } from './list-id.ts';
import { classifyUri, extractUris, MAX_URIS, parseListUnsubscribe, parseMailto } from './list-unsubscribe.ts';

const ONE_CLICK = 'List-Unsubscribe=One-Click';

test('a https link and a mailto are both kept, in header order', () => {
  const m = parseListUnsubscribe(['<https://a.example/u?id=1>, <mailto:unsub@a.example?subject=unsubscribe>'], []);
  assert.deepEqual(m, {
    one_click: null,
    http: ['https://a.example/u?id=1'],
    mailto: [
      { uri: 'mailto:unsub@a.example?subject=unsubscribe', to: 'unsub@a.example', subject: 'unsubscribe', body: null },
    ],
  });
});

test('without a List-Unsubscribe-Post header there is no one-click', () => {
  assert.equal(parseListUnsubscribe(['<https://a.example/u>'], []).one_click, null);
});

test('RFC 8058: the Post value plus a https URI gives one-click, and the URI stays in http[]', () => {
  const m = parseListUnsubscribe(['<https://a.example/one-click?t=abc>'], [ONE_CLICK]);
  assert.equal(m.one_click, 'https://a.example/one-click?t=abc');
  assert.deepEqual(m.http, ['https://a.example/one-click?t=abc']);
});

test('one-click takes the first https URI even when a mailto comes first', () => {
  const m = parseListUnsubscribe(
    ['<mailto:u@a.example>, <https://a.example/first>, <https://a.example/second>'],
    [ONE_CLICK],
  );
  assert.equal(m.one_click, 'https://a.example/first');
  assert.deepEqual(m.http, ['https://a.example/first', 'https://a.example/second']);
  assert.equal(m.mailto.length, 1);
});

test('one-click skips an http: URI and takes the later https one', () => {
  const m = parseListUnsubscribe(['<http://a.example/plain>, <https://a.example/secure>'], [ONE_CLICK]);
  assert.equal(m.one_click, 'https://a.example/secure');
  assert.deepEqual(m.http, ['http://a.example/plain', 'https://a.example/secure']);
});

test('the Post value is matched exactly after trimming: other values give no one-click', () => {
  for (const post of ['One-Click', 'List-Unsubscribe=Yes', 'List-Unsubscribe=One-Click; x=1', '', 'List-Unsubscribe']) {
    assert.equal(parseListUnsubscribe(['<https://a.example/u>'], [post]).one_click, null, post);
  }
  assert.equal(
    parseListUnsubscribe(['<https://a.example/u>'], ['  list-unsubscribe=one-click\t']).one_click,
    'https://a.example/u',
  );
});

test('one matching Post value among several is enough', () => {
  const m = parseListUnsubscribe(['<https://a.example/u>'], ['nonsense', ONE_CLICK]);
  assert.equal(m.one_click, 'https://a.example/u');
});

test('the same URI twice is kept once', () => {
  const m = parseListUnsubscribe(
    ['<https://a.example/u>, <https://a.example/u>, <mailto:u@a.example>, <mailto:u@a.example>'],
    [],
  );
  assert.deepEqual(m.http, ['https://a.example/u']);
  assert.equal(m.mailto.length, 1);
});

test(`at most ${MAX_URIS} URIs are kept from one message`, () => {
  const list = Array.from({ length: 15 }, (_, i) => `<https://a.example/u${i}>`).join(', ');
  const m = parseListUnsubscribe([list], []);
  assert.equal(m.http.length, 10);
  assert.equal(m.http[9], 'https://a.example/u9');
});

test('whitespace inside the brackets is ignored (RFC 2369 §2)', () => {
  assert.deepEqual(extractUris('< https://a.example/u >'), ['https://a.example/u']);
});

test('mailto: a literal + stays a plus in the subject and the address (RFC 6068)', () => {
  assert.deepEqual(parseMailto('mailto:list+unsub-123@a.example?subject=unsub+me'), {
    uri: 'mailto:list+unsub-123@a.example?subject=unsub+me',
    to: 'list+unsub-123@a.example',
    subject: 'unsub+me',
    body: null,
  });
});

test('mailto: subject and body are percent-decoded, %2B is a plus, CRLF in the body is kept', () => {
  const m = parseMailto('mailto:u@a.example?subject=Unsubscribe%20me%2Bnow&body=Please%20remove%0D%0Ame%3A%20x');
  assert.equal(m?.subject, 'Unsubscribe me+now');
  assert.equal(m?.body, 'Please remove\r\nme: x');
});

test('mailto: percent-encoded UTF-8 decodes to text', () => {
  assert.equal(parseMailto('mailto:u@a.example?subject=d%C3%A9sinscription')?.subject, 'désinscription');
});

test('mailto: a percent-encoded address is decoded', () => {
  assert.equal(parseMailto('mailto:unsub%40a.example')?.to, 'unsub@a.example');
});

test('mailto: hfield names are case-insensitive and unknown hfields are ignored', () => {
  const m = parseMailto('MAILTO:u@a.example?In-Reply-To=%3Cx%40y%3E&SUBJECT=stop&Body=now');
  assert.deepEqual([m?.to, m?.subject, m?.body], ['u@a.example', 'stop', 'now']);
});

test('mailto: an empty subject or body counts as absent', () => {
  const m = parseMailto('mailto:u@a.example?subject=&body=');
  assert.deepEqual([m?.subject, m?.body], [null, null]);
});

test('mailto: bad percent-escapes and bad UTF-8 refuse the method', () => {
  assert.equal(parseMailto('mailto:u@a.example?subject=%G1'), null);
  assert.equal(parseMailto('mailto:u@a.example?subject=%4'), null);
  assert.equal(parseMailto('mailto:u@a.example?body=%C3'), null);
  assert.equal(parseMailto('mailto:u%ZZ@a.example'), null);
});

test('mailto: an encoded CR/LF in the subject is refused (header injection)', () => {
  assert.equal(parseMailto('mailto:u@a.example?subject=x%0D%0ABcc:%20victim@b.example'), null);
});

test('mailto: without an address, or with a malformed one, is refused', () => {
  for (const uri of [
    'mailto:',
    'mailto:?subject=x',
    'mailto:not-an-address',
    'mailto:u@localhost',
    'mailto:u@[127.0.0.1]',
  ]) {
    assert.equal(parseMailto(uri), null, uri);
  }
});

test('http(s) URIs with credentials or without an authority are refused', () => {
  assert.equal(classifyUri('https://user:pw@a.example/u'), null);
  assert.equal(classifyUri('https:a.example/u'), null);
  assert.equal(classifyUri('https://'), null);
});

test('HTTPS:// is the same scheme as https:// and comes back lower-cased', () => {
  assert.deepEqual(classifyUri('HTTPS://a.example/u'), { kind: 'http', uri: 'https://a.example/u', https: true });
  assert.deepEqual(classifyUri('HtTp://A.example/U'), { kind: 'http', uri: 'http://A.example/U', https: false });
  assert.equal(
    parseListUnsubscribe(['<HTTPS://a.example/u>'], ['List-Unsubscribe=One-Click']).one_click,
    'https://a.example/u',
  );
  assert.equal(parseMailto('MAILTO:u@a.example')?.to, 'u@a.example');
});

test('an internationalised host becomes its punycode (A-label) form, in http(s) and mailto', () => {
  const m = parseListUnsubscribe(
    ['<https://bücher.example/u?t=1>, <mailto:stop@bücher.example?subject=stop>'],
    ['List-Unsubscribe=One-Click'],
  );
  assert.deepEqual(m.http, ['https://xn--bcher-kva.example/u?t=1']);
  assert.equal(m.one_click, 'https://xn--bcher-kva.example/u?t=1');
  assert.deepEqual(m.mailto, [
    {
      uri: 'mailto:stop@xn--bcher-kva.example?subject=stop',
      to: 'stop@xn--bcher-kva.example',
      subject: 'stop',
      body: null,
    },
  ]);
  // with a port, percent-encoded (RFC 3986 §3.2.2, RFC 6068 §2), and a mailto written that way
  assert.equal(classifyUri('https://BÜCHER.example:8443/u')?.kind, 'http');
  assert.deepEqual(classifyUri('https://bücher.example:8443/u'), {
    kind: 'http',
    uri: 'https://xn--bcher-kva.example:8443/u',
    https: true,
  });
  assert.deepEqual(classifyUri('https://b%C3%BCcher.example/u%20v'), {
    kind: 'http',
    uri: 'https://xn--bcher-kva.example/u%20v',
    https: true,
  });
  assert.equal(parseMailto('mailto:stop@b%C3%BCcher.example')?.to, 'stop@xn--bcher-kva.example');
});

test('non-ASCII outside the host, in a local part, or a host IDNA refuses is still dropped', () => {
  for (const uri of [
    'https://a.example/bücher',
    'https://a.example/?q=ü',
    'https://user@bücher.example/u',
    'https://bü cher.example/u',
    'https://bü\u200bcher.example/u',
    'https://xn--ü.example/u',
    'mailto:bücher@a.example',
    'mailto:stop@bücher.example?subject=ü',
    'mailto:b%C3%BCcher@a.example',
  ]) {
    assert.equal(classifyUri(uri), null, uri);
  }
});

test('a mailto local part longer than 64 octets is kept (real newsletters use 110)', () => {
  const local = `unsub-${'x1'.repeat(52)}`;
  assert.equal(local.length, 110);
  assert.equal(parseMailto(`mailto:${local}@lists.example.com`)?.to, `${local}@lists.example.com`);
  // the whole address is still bounded (RFC 5321 §4.5.3.1.3)
  assert.equal(parseMailto(`mailto:${'a'.repeat(250)}@a.example`), null);
});

test('List-Id: phrase and bracketed id, id lower-cased', () => {
  assert.deepEqual(parseListId('"Weekly News" <Weekly.News.Example.COM>'), {
    id: 'weekly.news.example.com',
    name: 'Weekly News',
  });
  assert.deepEqual(parseListId('Plain Name <list.example.com>'), { id: 'list.example.com', name: 'Plain Name' });
  assert.deepEqual(parseListId('<list.example.com>'), { id: 'list.example.com', name: null });
  assert.deepEqual(parseListId('  list.example.com '), { id: 'list.example.com', name: null });
  assert.deepEqual(parseListId('=?UTF-8?Q?Caf=C3=A9_News?= <cafe.example.com>'), {
    id: 'cafe.example.com',
    name: 'Café News',
  });
});

test('List-Id: ids without a dot, with spaces, or unterminated are refused', () => {
  for (const v of ['<12345>', 'News <a b.example.com>', 'News <list.example.com', 'two words', '']) {
    assert.equal(parseListId(v), null, v);
  }
});

test('Authentication-Results: results across headers, comments and reasons ignored', () => {
  const auth = parseAuthResults([
    'mx.example.net; dkim=pass header.d=a.example header.s=s1; spf=pass (mx.example.net: domain of x; spf=fail) smtp.mailfrom=a.example; dmarc=pass (p=NONE) header.from=a.example',
  ]);
  assert.deepEqual(auth, { dkim: 'pass', spf: 'pass', dmarc: 'pass' });
});

test('Authentication-Results: one passing DKIM signature is enough, but any DMARC or SPF fail wins', () => {
  const auth = parseAuthResults([
    'mx.example.net; dkim=fail header.d=esp.example; dkim=pass header.d=a.example; dmarc=pass',
    'relay.example.org; spf=pass; dmarc=fail reason="dmarc=pass"',
  ]);
  assert.deepEqual(auth, { dkim: 'pass', spf: 'pass', dmarc: 'fail' });
});

test('Authentication-Results: none, softfail and absent methods', () => {
  assert.deepEqual(parseAuthResults(['mx.example.net; dkim=none; spf=softfail']), {
    dkim: 'none',
    spf: 'unknown',
    dmarc: 'unknown',
  });
  assert.deepEqual(parseAuthResults(['mx.example.net; none']), { dkim: 'unknown', spf: 'unknown', dmarc: 'unknown' });
  assert.deepEqual(parseAuthResults([]), { dkim: 'unknown', spf: 'unknown', dmarc: 'unknown' });
  assert.deepEqual(parseAuthResults(['mx.example.net 1; dkim/1 = FAIL']).dkim, 'fail');
});
