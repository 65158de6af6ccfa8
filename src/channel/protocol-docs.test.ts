/**
 * docs/websocket.md against the protocol's one definition: the error table is the catalog
 * (codes and whether the connection stays), the closes are WS_CLOSE, and the messages the
 * document shows in each direction are exactly the protocol's message types.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ClientMessage, PROTOCOL_VERSION, ServerMessage, WS_CLOSE, WS_ERRORS } from './protocol.ts';

const doc = readFileSync(join(import.meta.dirname, '../../docs/websocket.md'), 'utf8');

/** The text from a heading to the next heading of the same or a higher level. */
function section(heading: string): string {
  const start = doc.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `docs/websocket.md has no "${heading}"`);
  const level = heading.indexOf(' ');
  const rest = doc.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`^#{1,${level}} `, 'm'));
  return end < 0 ? rest : rest.slice(0, end);
}

/** Table rows of a section: the cells of every `|`-line below the header and separator. */
function rows(text: string): string[][] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .slice(2)
    .map((l) =>
      l
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
}

const typesIn = (text: string) => new Set([...text.matchAll(/\{"type": "([a-z_]+)"/g)].map((m) => m[1]!));
const typesOf = (u: typeof ClientMessage | typeof ServerMessage) =>
  new Set(u.options.map((o) => o.shape.type.value as string));

describe('docs/websocket.md matches the protocol definition', () => {
  test('the title names the protocol version the server announces', () => {
    assert.match(doc.split('\n')[0]!, new RegExp(`protocol ${PROTOCOL_VERSION.replace('.', '\\.')}$`));
  });

  test('the error table lists exactly the catalog, with whether the connection stays', () => {
    const table = rows(section('### Error codes')).map(([code, , connection]) => [code, connection]);
    const catalog = Object.entries(WS_ERRORS).map(([code, e]) => [`\`${code}\``, e.connection]);
    assert.deepEqual(table, catalog);
  });

  test('the close table lists exactly the closes the server makes', () => {
    const table = rows(section('### Closes')).map(([code, reason]) => `${code} ${reason!.replaceAll('`', '')}`);
    assert.deepEqual(
      table,
      Object.values(WS_CLOSE).map((c) => `${c.code} ${c.reason}`),
    );
  });

  test('each direction shows every message type of the protocol and no other', () => {
    assert.deepEqual(typesIn(section('## Client → server')), typesOf(ClientMessage));
    assert.deepEqual(typesIn(section('## Server → client')), typesOf(ServerMessage));
  });
});
