import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { mcpServerEntry, PROTOCOL_VERSIONS, serverName } from './entry.ts';
import { TOOLS } from './tools.ts';

test('the discovery entry names the protocol versions the SDK serves, the 2026-07-28 revision first', () => {
  assert.deepEqual(PROTOCOL_VERSIONS, ['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS]);
});

test('the discovery entry lists every tool the server registers, by name', () => {
  const entry = mcpServerEntry('https://optout.example');
  assert.deepEqual(
    entry.tools.map((t) => t.name),
    TOOLS.map((t) => t.name),
  );
  assert.equal(entry.name, serverName('https://optout.example'));
  assert.equal(entry.name, 'example.optout/inbox');
});
