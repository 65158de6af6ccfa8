/**
 * Generated hostile header blocks (fast-check) through every parser a scan runs on a stranger's
 * mail: the scan's header parser and the postal-mime reference it is held to, List-Unsubscribe,
 * List-Id, Date, Authentication-Results and the one-click evidence. None may throw, the two
 * header parsers must agree, and what comes out keeps the promises the rest of optout relies on.
 * Budget and a longer run: test/fuzz/settings.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseAuthResults } from '../../src/mailbox/auth-results.ts';
import { dateMs } from '../../src/mailbox/date.ts';
import { createHeaderParser, parseMessage, parseMessageReference } from '../../src/mailbox/headers.ts';
import { parseListId } from '../../src/mailbox/list-id.ts';
import { isMailAddress, parseListUnsubscribe } from '../../src/mailbox/list-unsubscribe.ts';
import { oneClickWithheld } from '../../src/mailbox/one-click-evidence.ts';
import type { ParsedMessage } from '../../src/mailbox/types.ts';
import { fuzzParams } from './settings.ts';

const text = fc.string({ unit: 'binary', maxLength: 60 });
const ascii = fc.string({ unit: 'binary-ascii', maxLength: 60 });
const token = fc.stringMatching(/^[A-Za-z0-9._~+%-]{0,24}$/);

/** RFC 2047 encoded words, well and badly formed */
const encodedWord = fc
  .tuple(
    fc.constantFrom('UTF-8', 'utf-8', 'ISO-8859-1', 'x-unknown', '', 'UTF-7', 'GB2312', 'utf-8*en'),
    fc.constantFrom('B', 'Q', 'b', 'q', 'X', ''),
    fc.oneof(fc.base64String({ maxLength: 40 }), ascii, token),
  )
  .map(([cs, enc, payload]) => `=?${cs}?${enc}?${payload}?=`);

const scheme = fc.constantFrom('https', 'HTTPS', 'http', 'mailto', 'MAILTO', 'javascript', 'data', 'ftp', 'file', '');
const host = fc.oneof(
  fc.domain(),
  fc.constantFrom('bücher.example', 'xn--', '127.0.0.1', '[::1]', '169.254.169.254', 'a..b', '', 'ex%C3%A4mple.com'),
  text,
);
const uri = fc.oneof(
  fc.tuple(scheme, host, ascii).map(([s, h, p]) => `${s}://${h}/${p}`),
  fc.tuple(token, host, ascii).map(([l, h, q]) => `mailto:${l}@${h}?${q}`),
  fc
    .tuple(fc.string({ unit: 'grapheme-ascii', minLength: 60, maxLength: 200 }), host)
    .map(([l, h]) => `mailto:${l}@${h}`),
  text,
);
const uriList = fc
  .array(fc.tuple(uri, fc.constantFrom('<', '', '<<'), fc.constantFrom('>', '', '>>')), { maxLength: 12 })
  .chain((items) =>
    fc
      .constantFrom(', ', ',', ' ', ',,', ' (comment, <x>) ')
      .map((sep) => items.map(([u, o, c]) => `${o}${u}${c}`).join(sep)),
  );

const date = fc.oneof(
  fc.date({ noInvalidDate: false }).map((d) => (Number.isNaN(d.getTime()) ? 'Invalid' : d.toUTCString())),
  fc
    .tuple(
      fc.constantFrom('Mon,', 'Foo,', ''),
      fc.integer({ min: -5, max: 40 }),
      fc.constantFrom('Jan', 'Feb', 'Xyz', 'jan'),
      fc.integer({ min: -1, max: 99999 }),
      ascii,
    )
    .map(([d, n, m, y, z]) => `${d} ${n} ${m} ${y} 25:61:99 ${z}`),
  text,
);

const resinfo = fc
  .tuple(
    fc.constantFrom('dkim', 'DKIM', 'spf', 'dmarc', 'dkim/1', 'x'),
    fc.constantFrom('pass', 'fail', 'none', 'neutral', 'PASS', ''),
    fc.array(
      fc.tuple(
        fc.constantFrom('header.d', 'header.b', 'header.i', 'header.s', 'reason', 'smtp.mailfrom'),
        fc.oneof(host, ascii, token),
      ),
      { maxLength: 4 },
    ),
    fc.constantFrom('', ' (comment; dkim=pass)', ' "quoted; dkim=pass"', ' (unterminated', ' "open'),
  )
  .map(([m, r, props, extra]) => `${m}=${r}${extra} ${props.map(([k, v]) => `${k}=${v}`).join(' ')}`);
const authResults = fc
  .tuple(fc.oneof(fc.domain(), ascii), fc.array(resinfo, { maxLength: 6 }))
  .map(([id, parts]) => [id, ...parts].join('; '));
const dkimSignature = fc
  .array(
    fc.tuple(
      fc.constantFrom('v', 'a', 'd', 's', 'h', 'b', 'bh', 'D', 'h ', ''),
      fc.oneof(host, ascii, fc.constant('from:list-unsubscribe:list-unsubscribe-post')),
    ),
    {
      maxLength: 9,
    },
  )
  .map((tags) => tags.map(([k, v]) => `${k}=${v}`).join('; '));

const field = fc.oneof(
  fc.tuple(
    fc.constantFrom('From', 'FROM', 'from'),
    fc.oneof(
      fc.emailAddress(),
      text,
      fc.tuple(encodedWord, fc.emailAddress()).map(([n, a]) => `${n} <${a}>`),
      fc.constant('undisclosed-recipients:;'),
    ),
  ),
  fc.tuple(fc.constantFrom('List-Unsubscribe', 'list-unsubscribe'), fc.oneof(uriList, encodedWord, text)),
  fc.tuple(
    fc.constant('List-Unsubscribe-Post'),
    fc.constantFrom('List-Unsubscribe=One-Click', 'list-unsubscribe=one-click ', 'x', ''),
  ),
  fc.tuple(
    fc.constant('List-Id'),
    fc.oneof(
      fc.tuple(encodedWord, fc.domain()).map(([n, d]) => `${n} <${d}>`),
      text,
    ),
  ),
  fc.tuple(
    fc.constant('Subject'),
    fc.oneof(
      encodedWord,
      fc.array(encodedWord, { maxLength: 5 }).map((w) => w.join(' ')),
      text,
    ),
  ),
  fc.tuple(fc.constant('Date'), date),
  fc.tuple(fc.constant('Authentication-Results'), authResults),
  fc.tuple(fc.constant('DKIM-Signature'), dkimSignature),
  fc.tuple(
    fc.constant('Message-ID'),
    fc.oneof(
      fc.emailAddress().map((a) => `<${a}>`),
      text,
    ),
  ),
  fc.tuple(fc.oneof(token, text), text),
);

/** A block: fields joined by a random line end, some folded, sometimes raw bytes mixed in. */
const block = fc
  .tuple(
    fc.array(fc.tuple(field, fc.constantFrom('', '\r\n ', '\r\n\t', '\n ', '\r\n')), { maxLength: 14 }),
    fc.constantFrom('\r\n', '\n', '\r', '\r\r\n'),
    fc.option(fc.uint8Array({ maxLength: 200 }), { nil: null }),
  )
  .map(([fields, eol, raw]) => {
    const lines = fields.map(([[name, value], fold]) => {
      const cut = Math.floor(value.length / 2);
      return `${name}: ${value.slice(0, cut)}${fold}${value.slice(cut)}`;
    });
    const head = Buffer.from(`${lines.join(eol)}${eol}${eol}`, 'utf8');
    return raw ? Buffer.concat([raw, head]) : head;
  });

const meta = (headers: Buffer) => ({ uid: 1, mailbox: 'INBOX', junk: false, seen: false, headers });

/** What the rest of optout relies on, whatever the input. */
function keepsPromises(m: ParsedMessage) {
  const { one_click, http, mailto } = m.methods;
  if (one_click !== null) {
    assert.ok(http.includes(one_click));
    assert.match(one_click, /^https:\/\//);
  }
  for (const u of http) assert.match(u, /^https?:\/\/[\x21-\x7e]+$/);
  for (const x of mailto) {
    assert.ok(isMailAddress(x.to), x.to);
    assert.ok(!/[\r\n]/.test(x.subject ?? ''));
  }
  if (m.oneClickWithheld !== null) assert.equal(one_click, null);
  assert.ok([...(m.subject ?? '')].length <= 200); // characters, not UTF-16 units
  if (m.date) assert.ok(!Number.isNaN(m.date.getTime()));
}

test('generated hostile header blocks: the scan parser never throws, agrees with postal-mime and keeps its promises', async () => {
  const scanParser = createHeaderParser();
  await fc.assert(
    fc.asyncProperty(block, async (headers) => {
      const fast = await parseMessage(meta(headers));
      const reference = await parseMessageReference(meta(headers));
      assert.deepEqual(fast, reference);
      keepsPromises(fast);
      const memo = scanParser(meta(headers), { onlyWithMethods: true });
      if (memo) assert.deepEqual(memo.methods, fast.methods);
    }),
    fuzzParams(1500),
  );
});

test('generated hostile values: each field parser on its own never throws', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(uriList, text), { maxLength: 3 }),
      fc.array(fc.oneof(ascii, fc.constant('List-Unsubscribe=One-Click')), { maxLength: 3 }),
      fc.array(authResults, { maxLength: 3 }),
      fc.array(dkimSignature, { maxLength: 3 }),
      fc.oneof(host, fc.constant(null)),
      fc.oneof(date, text),
      fc.oneof(text, encodedWord),
      (unsub, post, ar, dkim, from, d, listId) => {
        const m = parseListUnsubscribe(unsub, post);
        if (m.one_click) assert.ok(m.http.includes(m.one_click));
        const why = oneClickWithheld(ar, dkim, from);
        assert.ok(why === null || typeof why === 'string');
        parseAuthResults(ar);
        const ms = dateMs(d);
        assert.ok(typeof ms === 'number');
        const id = parseListId(listId);
        if (id) assert.ok(id.id.length > 0);
      },
    ),
    fuzzParams(3000),
  );
});
