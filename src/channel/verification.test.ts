import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Subscription } from '../mailbox/types.ts';
import { markVerification, summarizeVerification } from './verification.ts';

const sub = (list_key: string, last_seen: string): Subscription => ({
  id: list_key,
  list_key,
  sender: { name: '', address: 'a@x.example', domain: 'x.example' },
  list_id: null,
  count: 3,
  first_seen: '2026-01-01T00:00:00.000Z',
  last_seen,
  per_month: 1,
  read_rate: 0,
  methods: { one_click: null, http: [], mailto: [] },
  one_click_withheld: null,
  sample_subjects: [],
  auth: { dkim: 'pass', spf: 'pass', dmarc: 'pass' },
  mailboxes: ['INBOX'],
  junk_only: false,
  service: null,
});

describe('verification of earlier unsubscriptions', () => {
  const at = '2026-10-01T12:00:00.000Z';

  test('a list still mailing more than 48 h after the unsubscription is ineffective', () => {
    const s = markVerification(sub('list:a', '2026-10-04T00:00:00.000Z'), [{ list_key: 'list:a', at }]);
    assert.equal(s.verification, 'ineffective');
    assert.equal(s.unsubscribed_at, at);
  });

  test('mail inside the 48 h grace period does not count against the sender', () => {
    const s = markVerification(sub('list:a', '2026-10-02T12:00:00.000Z'), [{ list_key: 'list:a', at }]);
    assert.equal(s.verification, 'verified_quiet');
  });

  test('the latest unsubscription of a list is the one that counts', () => {
    const s = markVerification(sub('list:a', '2026-10-04T00:00:00.000Z'), [
      { list_key: 'list:a', at: '2026-09-01T00:00:00.000Z' },
      { list_key: 'list:a', at: '2026-10-03T00:00:00.000Z' },
    ]);
    assert.equal(s.verification, 'verified_quiet');
  });

  test('lists not seen at all are quiet, unless the grace period is still running', () => {
    const now = Date.parse('2026-10-05T00:00:00.000Z');
    const summary = summarizeVerification(
      [
        { list_key: 'list:gone', at },
        { list_key: 'list:recent', at: '2026-10-04T12:00:00.000Z' },
        { list_key: 'list:a', at },
      ],
      new Map([['x', markVerification(sub('list:a', '2026-10-04T00:00:00.000Z'), [{ list_key: 'list:a', at }])]]),
      now,
    );
    const byKey = Object.fromEntries(summary.map((s) => [s.list_key, s.status]));
    assert.deepEqual(byKey, { 'list:gone': 'verified_quiet', 'list:recent': 'pending', 'list:a': 'ineffective' });
  });

  test('subscriptions without an earlier unsubscription are left as they are', () => {
    const s = sub('list:b', '2026-10-04T00:00:00.000Z');
    assert.equal(markVerification(s, [{ list_key: 'list:a', at }]), s);
  });
});
