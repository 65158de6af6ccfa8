/**
 * The tokenizer and the FETCH parser of the lean reader fed hostile byte streams directly:
 * every split of the input, limits (huge literal sizes, endless lines, too many literals),
 * unexpected untagged responses, items in any order, NIL, literal8, non-ASCII bytes. Failures
 * are ImapProtocolError or 'malformed', never a crash or an unbounded allocation.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type FetchedHeaders, readFetch } from './fetch-reader.ts';
import {
  createTokenizer,
  DEFAULT_LIMITS,
  ImapProtocolError,
  type ImapResponse,
  literalSize,
  type TokenizerLimits,
} from './imap-tokenizer.ts';

const b = (s: string) => Buffer.from(s, 'latin1');

function tokenize(chunks: Buffer[], limits: TokenizerLimits = DEFAULT_LIMITS): ImapResponse[] {
  const out: ImapResponse[] = [];
  const t = createTokenizer(limits, (r) => out.push(r));
  for (const c of chunks) t.push(c);
  return out;
}

/** A response as comparable text: parts and literals in order. */
const show = (r: ImapResponse) =>
  r.texts.map((t, i) => t.toString('latin1') + (i < r.literals.length ? `[${r.literals[i]!.toString('latin1')}]` : ''));

const messages = (rs: ImapResponse[]) => rs.map(readFetch).filter((m): m is FetchedHeaders => typeof m === 'object');

// A server's answer with everything odd RFC 3501 allows: items in any order, unsolicited data,
// non-ASCII bytes, NIL, a quoted string, literal8, an origin, a FETCH with no UID.
const H1 = 'From: A <a@x.example>\r\nList-Unsubscribe: <https://x.example/u>\r\n\r\n';
const H2 = Buffer.concat([b('Subject: caf'), Buffer.from([0xc3, 0xa9, 0xff]), b('\r\n\r\n')]);
const STREAM = Buffer.concat([
  b(`* 1 FETCH (UID 10 FLAGS (\\Seen) BODY[HEADER.FIELDS (FROM LIST-UNSUBSCRIBE)] {${H1.length}}\r\n${H1})\r\n`),
  b('* 3 EXISTS\r\n'),
  b(`* 2 FETCH (FLAGS () UID 11 BODY[HEADER.FIELDS (SUBJECT)] {${H2.length}}\r\n`),
  H2,
  b(')\r\n'),
  Buffer.concat([b('* OK [ALERT] syst'), Buffer.from([0xe8, 0x6d, 0x65]), b('\r\n')]),
  b('* 1 EXPUNGE\r\n'),
  b('* 2 FETCH (BODY[HEADER.FIELDS (FROM)] {5}\r\nabcde UID 12 FLAGS (\\Answered \\SEEN))\r\n'),
  b('* 4 FETCH (FLAGS (\\Seen))\r\n'),
  b('* 5 FETCH (UID 14 MODSEQ (12345) BODY[HEADER.FIELDS (FROM)] NIL FLAGS (\\Seenx))\r\n'),
  b('* 6 FETCH (UID 15 BODY[HEADER.FIELDS (FROM)]<0> "q\\"uoted" X-GM-LABELS ("a b" {2}\r\nxy))\r\n'),
  b('* 7 FETCH (UID 16 BINARY[1] ~{3}\r\nabc BODY[HEADER.FIELDS (FROM)] {0}\r\n)\r\n'),
  b('* 8 FETCH (BODY[HEADER.FIELDS (FROM)] {2}\r\nab)\r\n'),
  b('* 9 FeTcH (uid 17 body[HEADER.FIELDS (FROM)] {1}\nz)\n'),
  b('A1 OK done\r\n'),
]);
const EXPECTED: FetchedHeaders[] = [
  { uid: 10, seen: true, headers: b(H1) },
  { uid: 11, seen: false, headers: H2 },
  { uid: 12, seen: true, headers: b('abcde') },
  { uid: 14, seen: false, headers: Buffer.alloc(0) },
  { uid: 15, seen: false, headers: b('q"uoted') },
  { uid: 16, seen: false, headers: Buffer.alloc(0) },
  { uid: 17, seen: false, headers: b('z') },
];

describe('tokenizer and FETCH parser', () => {
  test('reads every item shape, ignores unsolicited responses, counts a FETCH without UID as malformed', () => {
    const rs = tokenize([STREAM]);
    assert.deepEqual(messages(rs), EXPECTED);
    assert.deepEqual(
      rs.map(readFetch).filter((m) => m === 'malformed'),
      ['malformed'],
    );
    assert.equal(show(rs.at(-1)!)[0], 'A1 OK done');
  });

  test('the same responses whatever the chunking: every split point, byte by byte', () => {
    const whole = tokenize([STREAM]).map(show);
    for (let i = 0; i <= STREAM.length; i++) {
      const split = tokenize([STREAM.subarray(0, i), STREAM.subarray(i)]);
      assert.deepEqual(split.map(show), whole, `split at ${i}`);
      assert.deepEqual(messages(split), EXPECTED, `split at ${i}`);
    }
    const bytes = Array.from({ length: STREAM.length }, (_, i) => STREAM.subarray(i, i + 1));
    assert.deepEqual(tokenize(bytes).map(show), whole);
  });

  test('a declared literal over the cap is an error at once, never an allocation', () => {
    for (const size of ['99999999999', '4294967296000000', String(DEFAULT_LIMITS.maxLiteral + 1)]) {
      const t = createTokenizer(DEFAULT_LIMITS, () => assert.fail('no response expected'));
      assert.throws(() => t.push(b(`* 1 FETCH (UID 1 BODY[HEADER] {${size}}\r\n`)), ImapProtocolError);
      assert.equal(t.pending(), 0);
      // once failed, it stays failed
      assert.throws(() => t.push(b('A1 OK\r\n')), ImapProtocolError);
    }
  });

  test('a literal over keepLiteral is read to its end but only its start is kept', () => {
    const limits = { ...DEFAULT_LIMITS, keepLiteral: 10 };
    const body = 'x'.repeat(50_000);
    const rs = tokenize(
      [
        b(`* 1 FETCH (UID 5 FLAGS () BODY[HEADER] {${body.length}}\r\n`),
        b(body),
        b(')\r\n* 2 FETCH (UID 6 FLAGS () BODY[HEADER] {1}\r\nq)\r\n'),
      ],
      limits,
    );
    assert.deepEqual(messages(rs), [
      { uid: 5, seen: false, headers: b('x'.repeat(10)) },
      { uid: 6, seen: false, headers: b('q') },
    ]);
  });

  test('a line that never ends (missing CRLF) hits maxLine and fails; memory stays bounded', () => {
    const t = createTokenizer(DEFAULT_LIMITS, () => {});
    const block = b('A'.repeat(8192));
    let failed = false;
    for (let i = 0; i < 100 && !failed; i++) {
      try {
        t.push(block);
        assert.ok(t.pending() <= DEFAULT_LIMITS.maxLine);
      } catch (err) {
        assert.ok(err instanceof ImapProtocolError);
        failed = true;
      }
    }
    assert.ok(failed, 'the endless line was refused');
  });

  test('too many literals in one response, and text spread over literals, are bounded too', () => {
    const many = `* 1 FETCH (${Array.from({ length: 70 }, (_, i) => `X${i} {1}\r\na`).join(' ')})\r\n`;
    assert.throws(() => tokenize([b(many)]), ImapProtocolError);
    const long = `* 1 FETCH (${Array.from({ length: 60 }, () => `${'Y'.repeat(2000)} {1}\r\na`).join(' ')})\r\n`;
    assert.throws(() => tokenize([b(long)]), ImapProtocolError);
  });

  test('literal markers: {n}, {n+}, ~{n}; anything else is text', () => {
    assert.equal(literalSize(b('x {12}')), 12);
    assert.equal(literalSize(b('x {12+}')), 12);
    assert.equal(literalSize(b('x ~{3}')), 3);
    assert.equal(literalSize(b('x {}')), -1);
    assert.equal(literalSize(b('x {1a}')), -1);
    assert.equal(literalSize(b('x 12}')), -1);
    assert.equal(literalSize(b('{12345678901}')), Number.MAX_SAFE_INTEGER);
  });

  test('a response that is not a FETCH, or a FETCH of something else, is not a message', () => {
    for (const line of ['* 12 EXISTS', '* OK [UIDNEXT 5]', '* 1 FETCH', '* 1 FETCHX (UID 1)', '* x FETCH (UID 1)']) {
      assert.equal(readFetch({ texts: [b(line)], literals: [] }), 'other', line);
    }
    for (const line of [
      '* 1 FETCH (UID 0 BODY[X] NIL)',
      '* 1 FETCH (UID 99999999999 BODY[X] NIL)',
      '* 1 FETCH (UID 1 BODY[X NIL)',
    ]) {
      assert.equal(readFetch({ texts: [b(line)], literals: [] }), 'malformed', line);
    }
  });
});
