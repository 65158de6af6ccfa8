/**
 * The scan's fast header path must give exactly what postal-mime gives. Three layers are held
 * to it, on every block of a generated realistic + nasty mailbox and on seeded random hostile
 * blocks (folding, bare CR/LF, CR-only lines, missing colons, odd name cases, U+212A and U+0130
 * in names, invalid UTF-8, a BOM, encoded words):
 * - splitHeaderFields (below: postal-mime's reading, written plainly) ≡ postal-mime's `headers`;
 * - readScanFields (header-split.ts) ≡ splitHeaderFields, filtered to the scan's fields;
 * - createHeaderParser (with its per-list cache) and parseMessage ≡ parseMessageReference.
 * parseAuthResults is compared with the implementation it replaced, kept here verbatim.
 */
import assert from 'node:assert/strict';
import { isAscii } from 'node:buffer';
import { test } from 'node:test';
import PostalMime from 'postal-mime';
import { generateMailbox } from '../../test/fixtures/mail-generator.ts';
import { parseAuthResults } from './auth-results.ts';
import { readScanFields, trimWsp } from './header-split.ts';
import { createHeaderParser, headerBlock, parseMessage, parseMessageReference } from './headers.ts';
import { HEADER_FIELDS } from './scan.ts';
import type { MessageMeta } from './types.ts';

/** What Dovecot answers to HEADER.FIELDS: the matching lines (with their folds) and an empty line. */
function headerFields(raw: Buffer): Buffer {
  const text = raw.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const out: string[] = [];
  let keep = false;
  for (const line of text.slice(0, end < 0 ? text.length : end).split('\r\n')) {
    if (line.startsWith(' ') || line.startsWith('\t')) {
      if (keep) out.push(line);
      continue;
    }
    keep = HEADER_FIELDS.includes(line.slice(0, line.indexOf(':')).trim().toLowerCase());
    if (keep) out.push(line);
  }
  return Buffer.from(`${out.join('\r\n')}\r\n\r\n`, 'latin1');
}

// ---- the reading postal-mime does, written plainly: the reference for readScanFields

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
const [CR, SP, HTAB] = [13, 32, 9];

function splitHeaderFields(block: Uint8Array): { key: string; value: string }[] {
  const b = Buffer.isBuffer(block) ? block : Buffer.from(block.buffer, block.byteOffset, block.byteLength);
  const s = isAscii(b) ? b.toString('latin1') : utf8.decode(b);
  const fields: { key: string; value: string }[] = [];
  let parts: string[] | null = null;
  let pos = 0;
  while (pos < s.length) {
    const nl = s.indexOf('\n', pos);
    const next = nl < 0 ? s.length : nl + 1;
    let end = nl < 0 ? s.length : nl;
    while (end > pos && s.charCodeAt(end - 1) === CR) end--;
    if (end === pos) break; // an empty line: the body starts
    const first = s.charCodeAt(pos);
    const line = s.slice(pos, end);
    if (parts !== null && (first === SP || first === HTAB)) parts.push(line);
    else {
      if (parts !== null) fields.push(field(parts));
      parts = [line];
    }
    pos = next;
  }
  if (parts !== null) fields.push(field(parts));
  return fields;
}

function field(parts: string[]): { key: string; value: string } {
  const unfolded = parts.length === 1 ? parts[0]! : parts.join('');
  const sep = unfolded.indexOf(':');
  if (sep < 0) return { key: trimWsp(unfolded).toLowerCase(), value: '' };
  let value = unfolded.slice(sep + 1);
  if (value.indexOf('\r') >= 0) value = value.replace(/[\r\n]+/g, ' ');
  return { key: trimWsp(unfolded.slice(0, sep)).toLowerCase(), value: trimWsp(value) };
}

/** Seeded random header blocks made of hostile pieces. */
function* hostileBlocks(seed: number, count: number): Generator<Buffer> {
  let x = seed >>> 0;
  const rnd = (n: number) => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 8) % n;
  };
  const names = [
    'From',
    'FROM',
    'from ',
    ' From',
    'Subject',
    'subject',
    'Date',
    'List-Id',
    'LIST-ID',
    'List-Unsubscribe',
    'list-unsubscribe',
    'List-Unsubscribe-Post',
    'Authentication-Results',
    'X-Other',
    'Fro\u212a',
    'L\u0130st-Id',
    'From\t',
    '',
    'Subject\r',
  ];
  const values = [
    ' News <news@a.example>',
    ' "Quoted, Name" <q@b.example>',
    ' =?UTF-8?B?w6lsw6luYQ==?= <e@c.example>',
    ' =?ISO-8859-1?Q?caf=E9?=',
    ' <https://a.example/u?t=1>, <mailto:u@a.example?subject=x>',
    ' List-Unsubscribe=One-Click',
    ' "A News" <news.a.example>',
    ' Tue, 1 Apr 2025 10:00:00 +0200',
    ' not a date',
    ' mx.example; dkim=pass header.d=a.example; spf=fail (x; y) smtp.mailfrom=a; dmarc=none',
    '',
    ' ',
    ' caf\u00e9 \u2603',
    ' a\rb',
    ' \ufeffbom',
    ' x:y:z',
  ];
  const rawBytes = [
    Buffer.from([0xc3]),
    Buffer.from([0xff, 0xfe]),
    Buffer.from([0xe2, 0x82]),
    Buffer.from('\ufeff', 'utf8'),
  ];
  const ends = ['\r\n', '\r\n', '\n', '\r\r\n', ''];
  for (let i = 0; i < count; i++) {
    const parts: Buffer[] = [];
    const lines = 1 + rnd(9);
    for (let l = 0; l < lines; l++) {
      const kind = rnd(10);
      let line: string;
      if (kind < 6) line = `${names[rnd(names.length)]}:${values[rnd(values.length)]}`;
      else if (kind < 8)
        line = `${rnd(2) ? ' ' : '\t'}${values[rnd(values.length)]}`; // a fold
      else if (kind < 9)
        line = `${names[rnd(names.length)]}${values[rnd(values.length)]}`; // no colon
      else line = rnd(3) === 0 ? '' : '\r'; // an empty or CR-only line
      parts.push(Buffer.from(line, 'utf8'));
      if (rnd(8) === 0) parts.push(rawBytes[rnd(rawBytes.length)]!);
      parts.push(Buffer.from(ends[rnd(ends.length)]!, 'latin1'));
    }
    yield Buffer.concat(parts);
  }
}

function generatedBlocks(): Buffer[] {
  const now = new Date('2026-11-22T00:00:00Z');
  const nasty = generateMailbox({ seed: 11, lists: 24, messagesPerList: [2, 14], plain: 30, nasty: true, now });
  const many = generateMailbox({ seed: 5, lists: 60, messagesPerList: [3, 8], plain: 40, nasty: false, now });
  return [...nasty.messages, ...many.messages].map((m) => headerFields(m.raw));
}

const meta = (headers: Buffer, i: number): MessageMeta => ({
  uid: i + 1,
  mailbox: 'INBOX',
  junk: false,
  seen: i % 2 === 0,
  headers,
});

test('splitHeaderFields reads a header section exactly as postal-mime does', async () => {
  const blocks = [...generatedBlocks(), ...hostileBlocks(1, 3000)];
  for (const [i, block] of blocks.entries()) {
    const cut = headerBlock(block);
    let expected: { key: string; value: string }[];
    try {
      expected = (await PostalMime.parse(cut)).headers.map(({ key, value }) => ({ key, value }));
    } catch {
      continue; // postal-mime refused the block; the parser treats that as an empty one (below)
    }
    assert.deepEqual(splitHeaderFields(cut), expected, `block ${i}: ${JSON.stringify(block.toString('latin1'))}`);
  }
});

test("readScanFields gives splitHeaderFields' values for the scan's fields", () => {
  for (const [i, block] of [...generatedBlocks(), ...hostileBlocks(2, 5000)].entries()) {
    const all = splitHeaderFields(block);
    const values = (k: string) => all.filter((f) => f.key === k).map((f) => f.value);
    const first = (k: string) => all.find((f) => f.key === k)?.value;
    assert.deepEqual(
      readScanFields(block),
      {
        from: first('from'),
        subject: first('subject'),
        date: first('date'),
        listUnsubscribe: values('list-unsubscribe'),
        listUnsubscribePost: values('list-unsubscribe-post'),
        listId: values('list-id'),
        authenticationResults: values('authentication-results'),
        messageId: first('message-id'),
        dkimSignature: values('dkim-signature'),
      },
      `block ${i}: ${JSON.stringify(block.toString('latin1'))}`,
    );
  }
});

test('the per-scan parser and parseMessage give what postal-mime gives, message by message', async () => {
  const blocks = [...generatedBlocks(), ...hostileBlocks(3, 3000)];
  // one parser for the whole sequence: its per-list cache sees every repeat and every change
  const cached = createHeaderParser();
  for (const [i, block] of blocks.entries()) {
    const expected = await parseMessageReference(meta(block, i));
    const where = `block ${i}: ${JSON.stringify(block.toString('latin1'))}`;
    assert.deepEqual(cached(meta(block, i)), expected, where);
    assert.deepEqual(await parseMessage(meta(block, i)), expected, where);
    const m = expected.methods;
    const usable = m.one_click !== null || m.http.length > 0 || m.mailto.length > 0;
    assert.deepEqual(cached(meta(block, i), { onlyWithMethods: true }), usable ? expected : null, where);
  }
});

test('first-wins fields: a name-only line, an empty value or a folded name counts as the first', async () => {
  const unsub = 'List-Unsubscribe: <https://a.example/u>';
  for (const lines of [
    ['From', 'From: Real <real@a.example>', unsub],
    ['From:', 'From: Real <real@a.example>', unsub],
    ['Fro', ' m: Folded <f@a.example>', 'From: Later <l@a.example>', unsub],
    ['Subject', 'Subject: later', 'Date', 'Date: Tue, 1 Apr 2025 10:00:00 +0200', 'From: a@a.example', unsub],
    ['List-Id', 'List-Id: <news.a.example>', 'From: a@a.example', unsub],
  ]) {
    const block = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);
    const expected = await parseMessageReference(meta(block, 0));
    assert.deepEqual(createHeaderParser()(meta(block, 0)), expected, lines.join(' | '));
    assert.deepEqual(await parseMessage(meta(block, 0)), expected, lines.join(' | '));
  }
});

test('a block over MAX_HEADER_BLOCK is cut as postal-mime would see it', async () => {
  const big = Buffer.from(`Subject: big\r\nX-Pad: ${'a'.repeat(300 * 1024)}\r\nFrom: late@x.example\r\n\r\n`);
  const expected = await parseMessageReference(meta(big, 0));
  assert.deepEqual(createHeaderParser()(meta(big, 0)), expected);
  assert.equal(expected.subject, 'big');
});

// ---- Authentication-Results: the implementation parseAuthResults replaced, verbatim

function referenceAuth(values: string[]) {
  const seen: Record<string, string[]> = { dkim: [], spf: [], dmarc: [] };
  for (const value of values.slice(0, 20)) {
    if (value.length > 8 * 1024) continue;
    const [, ...resinfos] = referenceSplit(value);
    for (const resinfo of resinfos) {
      const m = /^\s*(dkim|spf|dmarc)\s*(?:\/\s*\d+\s*)?=\s*([a-z]+)/i.exec(resinfo);
      if (m) seen[m[1]!.toLowerCase()]!.push(word(m[2]!));
    }
  }
  const combine = (results: string[], order: string[]) => order.find((v) => results.includes(v)) ?? 'unknown';
  return {
    dkim: combine(seen.dkim!, ['pass', 'fail', 'none']),
    spf: combine(seen.spf!, ['fail', 'pass', 'none']),
    dmarc: combine(seen.dmarc!, ['fail', 'pass', 'none']),
  };
}

function word(result: string): string {
  const r = result.toLowerCase();
  return r === 'pass' || r === 'fail' || r === 'none' ? r : 'unknown';
}

function referenceSplit(value: string): string[] {
  const parts: string[] = [];
  let cur = '';
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\' && (quoted || depth > 0)) i++;
    else if (quoted) {
      if (c === '"') quoted = false;
    } else if (c === '(') depth++;
    else if (depth > 0) {
      if (c === ')') depth--;
      if (depth === 0) cur += ' ';
    } else if (c === '"') {
      quoted = true;
      cur += '""';
    } else if (c === ';') {
      parts.push(cur);
      cur = '';
    } else cur += c;
  }
  parts.push(cur);
  return parts;
}

test('parseAuthResults agrees with the implementation it replaced on random hostile values', () => {
  let x = 12345;
  const rnd = (n: number) => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 8) % n;
  };
  const pieces = [
    ';',
    ';',
    ' ',
    '\t',
    '(',
    ')',
    '"',
    '\\',
    'dkim',
    'DKIM',
    'spf',
    'dmarc',
    '=',
    '=',
    'pass',
    'fail',
    'none',
    'PASS',
    'softfail',
    '/1',
    '/ 2 ',
    'mx.example',
    'header.b=abc',
    '\u00a0',
    '(c;d)',
    '"q;r"',
    'dkim=pass',
    ' spf=fail',
    'dmarc = none',
  ];
  for (let i = 0; i < 100_000; i++) {
    const values = Array.from({ length: 1 + rnd(2) }, () =>
      Array.from({ length: rnd(14) }, () => pieces[rnd(pieces.length)]).join(''),
    );
    assert.deepEqual(parseAuthResults(values), referenceAuth(values), JSON.stringify(values));
  }
});

test('the List-Unsubscribe shortcut skips only blocks that cannot hold the field', () => {
  const fields = (text: string) => readScanFields(Buffer.from(text, 'utf8'), undefined, { needListUnsubscribe: true });
  assert.equal(fields('From: a@example.com\r\nSubject: hello\r\n\r\n'), null);
  assert.equal(fields('From: a@example.com\r\nList-Id: <x.example.com>\r\n\r\n'), null);
  for (const name of ['LIST-UNSUBSCRIBE', 'list-UnSubscribe', ' List-Unsubscribe ']) {
    const f = fields(`${name}: <https://example.com/u>\r\nFrom: a@example.com\r\n\r\n`);
    assert.deepEqual(f?.listUnsubscribe, ['<https://example.com/u>'], name);
  }
  // the name elsewhere (a subject) is not a field, but the block is read in full
  assert.deepEqual(fields('Subject: list-unsubscribe\r\n\r\n')?.subject, 'list-unsubscribe');
  // a dotted capital I is not an ASCII i: no field, as without the shortcut
  assert.equal(fields('L\u0130ST-UNSUBSCRIBE: <https://example.com/u>\r\n\r\n'), null);
  assert.deepEqual(readScanFields(Buffer.from('L\u0130ST-UNSUBSCRIBE: <https://e.com/u>\r\n\r\n')).listUnsubscribe, []);
});
