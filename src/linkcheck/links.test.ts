import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeRecord } from '../../test/helpers/record.ts';
import { primaryLink, recordLinks } from './links.ts';

test('every link of a record is listed once, cancel page first, with every role it plays', () => {
  const r = makeRecord({
    website: 'https://www.example.com',
    cancel: {
      url: 'https://www.example.com/account/cancel',
      help_url: 'https://help.example.com/cancel',
      contacts: [{ type: 'chat', url: 'https://help.example.com/chat', source_ids: ['s1'] }],
    },
    steps: [
      {
        title: 'Open your account',
        surface: 'web',
        kind: 'sign_in',
        url: 'https://www.example.com/account',
        source_ids: ['s1'],
      },
      {
        title: 'Press Cancel',
        surface: 'web',
        kind: 'confirm',
        url: 'https://www.example.com/account/cancel',
        source_ids: ['s1'],
      },
    ],
    sources: [
      {
        id: 's1',
        kind: 'official_help',
        publisher: 'Example',
        title: 'Cancel',
        url: 'https://help.example.com/cancel',
        confirmed: true,
        read_at: '2026-11-26',
      },
      {
        id: 's2',
        kind: 'third_party_index',
        publisher: 'Index',
        url: 'https://www.index.example.org/e',
        confirmed: false,
        read_at: null,
        via: 'a pointer',
      },
      {
        id: 's3',
        kind: 'official_page',
        publisher: 'Example',
        url: null,
        confirmed: false,
        read_at: null,
        via: 'not found',
      },
    ],
  });
  const links = recordLinks(r);
  assert.deepEqual(
    links.map((l) => [l.url, l.roles]),
    [
      ['https://www.example.com/account/cancel', ['cancel', 'step']],
      ['https://help.example.com/cancel', ['help', 'source']],
      ['https://www.example.com', ['website']],
      ['https://www.example.com/account', ['step']],
      ['https://help.example.com/chat', ['contact']],
      ['https://www.index.example.org/e', ['source']],
    ],
  );
  assert.equal(primaryLink(r), links[0]!.url);
  assert.ok(links[0]!.officialDomains.includes('example.com'));
  assert.ok(links[0]!.officialDomains.includes('apple.com'), 'a billing platform is not off-domain');
  assert.deepEqual(links[5]!.officialDomains, ['index.example.org'], "a third party's page is judged on its own host");
});

test('without a cancel page the help article, then the website, is the cancel link', () => {
  const help = makeRecord({ cancel: { url: null, help_url: 'https://www.example.com/help/cancel' } });
  assert.equal(primaryLink(help), 'https://www.example.com/help/cancel');
  assert.equal(recordLinks(help)[0]!.url, 'https://www.example.com/help/cancel');
  const none = makeRecord({ cancel: { url: null, help_url: null } });
  assert.equal(primaryLink(none), 'https://www.example.com');
});
