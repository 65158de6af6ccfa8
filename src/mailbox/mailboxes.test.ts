/**
 * Which folders a scan reads, from a server's LIST (RFC 6154 special-use flags): the default,
 * roles with and without flags, and paths. Against a real server: test/integration/ws-folders.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pickMailboxes } from './mailboxes.ts';

const gmail = [
  { path: 'INBOX' },
  { path: '[Gmail]/All Mail', specialUse: '\\All' },
  { path: '[Gmail]/Spam', specialUse: '\\Junk' },
  { path: '[Gmail]/Trash', specialUse: '\\Trash' },
  { path: 'Receipts' },
];
const plain = [
  { path: 'INBOX' },
  { path: 'Archive', specialUse: '\\Archive' },
  { path: 'Spam' },
  { path: 'Deleted Items' },
];
const bare = [{ path: 'INBOX' }, { path: 'Lists' }];

const paths = (list: typeof gmail, requested?: string[]) => {
  const r = pickMailboxes(list, requested);
  assert.ok(r.ok, JSON.stringify(r));
  return r.mailboxes.map((m) => (m.junk ? `${m.path} (junk)` : m.path));
};

describe('the folders of a scan', () => {
  test('by default: \\All alone when the server has it, else INBOX and \\Archive, else INBOX', () => {
    assert.deepEqual(paths(gmail), ['[Gmail]/All Mail']);
    assert.deepEqual(paths(plain), ['INBOX', 'Archive']);
    assert.deepEqual(paths(bare), ['INBOX']);
    assert.deepEqual(paths(plain, ['default']), ['INBOX', 'Archive']);
  });

  test('junk and trash by flag, or by a well-known name when unflagged; junk is marked', () => {
    assert.deepEqual(paths(gmail, ['default', 'junk', 'trash']), [
      '[Gmail]/All Mail',
      '[Gmail]/Spam (junk)',
      '[Gmail]/Trash',
    ]);
    assert.deepEqual(paths(plain, ['default', 'spam', 'trash']), ['INBOX', 'Archive', 'Spam (junk)', 'Deleted Items']);
  });

  test('a role the server lacks is left out; a folder named twice is read once', () => {
    assert.deepEqual(paths(bare, ['default', 'archive', 'all', 'junk']), ['INBOX']);
    assert.deepEqual(paths(plain, ['inbox', 'INBOX', 'default', 'archive']), ['INBOX', 'Archive']);
  });

  test('paths are matched without regard to case; a missing path names the folders there are', () => {
    assert.deepEqual(paths(gmail, ['receipts', 'Inbox']), ['Receipts', 'INBOX']);
    const r = pickMailboxes(bare, ['default', 'Newsletters']);
    assert.deepEqual(r, { ok: false, missing: ['Newsletters'], available: ['INBOX', 'Lists'] });
  });
});
