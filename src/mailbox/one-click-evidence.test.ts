/**
 * One-click needs the receiving server's word that a DKIM signature aligned with the From domain
 * verified and covers both list headers (RFC 8058 §3.1). Each case is a message's
 * Authentication-Results and DKIM-Signature values as a scan reads them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseMessage } from './headers.ts';
import { oneClickWithheld } from './one-click-evidence.ts';

const COVERING = 'from:to:subject:date:list-id:list-unsubscribe:list-unsubscribe-post';
const sig = (d: string, h = COVERING, s = 's1', b = 'dGhpcyBpcyBhIHNpZ25hdHVyZQ==') =>
  `v=1; a=rsa-sha256; c=relaxed/relaxed; d=${d}; s=${s};\r\n\th=${h};\r\n\tbh=Ym9keQ==; b=${b}`;

test('taken: dkim=pass for an aligned signature that covers both list headers', () => {
  assert.equal(
    oneClickWithheld(['mx.example.net; dkim=pass header.d=news.example'], [sig('news.example')], 'news.example'),
    null,
  );
  // relaxed alignment: a subdomain on either side shares the organisational domain
  assert.equal(
    oneClickWithheld(
      ['mx.example.net; dkim=pass header.d=mail.news.example'],
      [sig('mail.news.example')],
      'news.example',
    ),
    null,
  );
  assert.equal(
    oneClickWithheld(['mx.example.net; dkim=pass header.d=news.example'], [sig('news.example')], 'em.news.example'),
    null,
  );
  // under a two-label public suffix
  assert.equal(
    oneClickWithheld(['mx.example.net; dkim=pass header.d=e.shop.co.uk'], [sig('e.shop.co.uk')], 'shop.co.uk'),
    null,
  );
});

test('taken: the result names its signature by header.b, header.s or header.i', () => {
  const a = sig('news.example', COVERING, 's1', 'AAAAAAAAAAAA');
  const b = sig('news.example', 'from:subject', 's2', 'BBBBBBBBBBBB');
  const ar = (props: string) => [`mx.example.net; dkim=pass ${props}`];
  assert.equal(oneClickWithheld(ar('header.d=news.example header.b=AAAAAAAA'), [b, a], 'news.example'), null);
  assert.equal(oneClickWithheld(ar('header.d=news.example header.s=s1'), [b, a], 'news.example'), null);
  assert.equal(oneClickWithheld(ar('header.b=BBBBBBBB'), [b, a], 'news.example'), 'list_headers_unsigned');
  assert.equal(oneClickWithheld(ar('header.i=@news.example header.b=AAAAAAAA'), [b, a], 'news.example'), null);
  assert.equal(oneClickWithheld(ar('header.i=list@mail.news.example'), [a], 'news.example'), null);
  // header.d alone with two signatures of that domain: both must qualify, as either may be the one
  assert.equal(oneClickWithheld(ar('header.d=news.example'), [b, a], 'news.example'), 'list_headers_unsigned');
});

test('taken: Gmail-, Outlook- and Fastmail-style values', () => {
  const s = sig('news.example', COVERING, 'google', 'Xy9zAbCdEfGh+/==');
  assert.equal(
    oneClickWithheld(
      [
        'mx.google.com;\r\n       dkim=pass header.i=@news.example header.s=google header.b=Xy9zAbCd;\r\n       spf=pass (google.com: domain of b@news.example designates 192.0.2.1 as permitted sender) smtp.mailfrom=b@news.example;\r\n       dmarc=pass (p=REJECT sp=REJECT dis=NONE) header.from=news.example',
      ],
      [s],
      'news.example',
    ),
    null,
  );
  // Outlook.com leaves out the authserv-id and starts with a resinfo
  assert.equal(
    oneClickWithheld(
      [
        'spf=pass (sender IP is 192.0.2.1) smtp.mailfrom=news.example; dkim=pass (signature was verified) header.d=news.example;dmarc=pass action=none header.from=news.example;compauth=pass reason=100',
      ],
      [s],
      'news.example',
    ),
    null,
  );
  assert.equal(
    oneClickWithheld(
      [
        'mx4.messagingengine.com;\r\n    dkim=pass (2048-bit rsa key sha256) header.d=news.example\r\n      header.i=@news.example header.b="Xy9zAbCd" header.a=rsa-sha256\r\n      header.s=google x-bits=2048;\r\n    dmarc=pass policy.published-domain-policy=reject',
      ],
      [s],
      'news.example',
    ),
    null,
  );
});

test('refused: no Authentication-Results, or one without a DKIM result', () => {
  assert.equal(oneClickWithheld([], [sig('news.example')], 'news.example'), 'unauthenticated');
  assert.equal(
    oneClickWithheld(['mx.example.net; spf=pass smtp.mailfrom=news.example'], [], 'news.example'),
    'unauthenticated',
  );
  assert.equal(oneClickWithheld(['mx.example.net; none'], [sig('news.example')], 'news.example'), 'unauthenticated');
});

test('refused: DKIM failed, was absent, or only softer results', () => {
  for (const r of ['fail', 'none', 'neutral', 'temperror', 'permerror', 'policy']) {
    assert.equal(
      oneClickWithheld([`mx.example.net; dkim=${r} header.d=news.example`], [sig('news.example')], 'news.example'),
      'dkim_failed',
      r,
    );
  }
});

test('refused: the passing signature belongs to another organisation than the From domain', () => {
  const ar = ['mx.example.net; dkim=pass header.d=esp.example'];
  assert.equal(oneClickWithheld(ar, [sig('esp.example')], 'news.example'), 'not_aligned');
  assert.equal(oneClickWithheld(ar, [sig('esp.example')], null), 'not_aligned');
  // two customers of one private suffix (Public Suffix List, private section) do not align
  assert.equal(
    oneClickWithheld(
      ['mx.example.net; dkim=pass header.d=evil.github.io'],
      [sig('evil.github.io')],
      'victim.github.io',
    ),
    'not_aligned',
  );
  // a signature that fails for the From domain beside a pass for another domain
  assert.equal(
    oneClickWithheld(
      ['mx.example.net; dkim=fail header.d=news.example; dkim=pass header.d=esp.example'],
      [sig('news.example'), sig('esp.example')],
      'news.example',
    ),
    'not_aligned',
  );
});

test('refused: the aligned passing signature does not cover both list headers', () => {
  const ar = ['mx.example.net; dkim=pass header.d=news.example'];
  for (const h of ['from:subject:date', 'from:list-unsubscribe', 'from:list-unsubscribe-post', 'from:list-id']) {
    assert.equal(oneClickWithheld(ar, [sig('news.example', h)], 'news.example'), 'list_headers_unsigned', h);
  }
  // the result names a signature that is not in the message
  assert.equal(oneClickWithheld(ar, [sig('other.example')], 'news.example'), 'list_headers_unsigned');
  assert.equal(oneClickWithheld(['mx.example.net; dkim=pass'], [], 'news.example'), 'list_headers_unsigned');
  // h= is read case-insensitively and with folding whitespace inside (RFC 6376 §3.5)
  assert.equal(
    oneClickWithheld(
      ar,
      [sig('news.example', 'From : List-Unsubscribe :\r\n\t List-Unsubscribe-Post')],
      'news.example',
    ),
    null,
  );
});

test('parseMessage drops the one-click of a message without the evidence and says why', async () => {
  const parse = (lines: string[]) =>
    parseMessage({
      uid: 1,
      mailbox: 'INBOX',
      junk: false,
      seen: false,
      headers: Buffer.from(
        [
          ...lines,
          'From: News <news@news.example>',
          'List-Unsubscribe: <https://news.example/u/1>, <mailto:u@news.example>',
          'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
          '',
          '',
        ].join('\r\n'),
      ),
    });
  const signed = await parse([
    'Authentication-Results: mx.example.net; dkim=pass header.d=news.example header.s=s1',
    `DKIM-Signature: ${sig('news.example')}`,
  ]);
  assert.equal(signed.methods.one_click, 'https://news.example/u/1');
  assert.equal(signed.oneClickWithheld, null);
  const unsigned = await parse([]);
  assert.deepEqual(unsigned.methods, {
    one_click: null,
    http: ['https://news.example/u/1'],
    mailto: [{ uri: 'mailto:u@news.example', to: 'u@news.example', subject: null, body: null }],
  });
  assert.equal(unsigned.oneClickWithheld, 'unauthenticated');
  const partial = await parse([
    'Authentication-Results: mx.example.net; dkim=pass header.d=news.example header.s=s1',
    `DKIM-Signature: ${sig('news.example', 'from:list-unsubscribe')}`,
  ]);
  assert.equal(partial.methods.one_click, null);
  assert.equal(partial.oneClickWithheld, 'list_headers_unsigned');
  // no one-click offered at all: nothing withheld
  const plain = await parseMessage({
    uid: 2,
    mailbox: 'INBOX',
    junk: false,
    seen: false,
    headers: Buffer.from('From: <a@news.example>\r\nList-Unsubscribe: <https://news.example/u>\r\n\r\n'),
  });
  assert.equal(plain.oneClickWithheld, null);
});
