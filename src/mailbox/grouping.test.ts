/**
 * Grouping parsed messages into subscriptions: keys, ids, counts and the merged fields.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { createGrouper } from './grouping.ts';
import type { ParsedMessage, ServiceMatch, UnsubscribeMethods } from './types.ts';

const NOW = new Date('2025-06-30T00:00:00Z');
const DAY = 86_400_000;

let uid = 0;
function msg(over: Partial<ParsedMessage> & { fromAddr?: string; fromName?: string } = {}): ParsedMessage {
  const { fromAddr = 'news@shop.example', fromName = 'Shop', ...rest } = over;
  return {
    uid: ++uid,
    mailbox: 'INBOX',
    junk: false,
    seen: false,
    from: { name: fromName, address: fromAddr },
    listId: null,
    listName: null,
    methods: { one_click: null, http: ['https://shop.example/u'], mailto: [] },
    oneClickWithheld: null,
    date: new Date('2025-06-01T00:00:00Z'),
    subject: 'Hello',
    auth: { dkim: 'unknown', spf: 'unknown', dmarc: 'unknown' },
    messageId: null,
    ...rest,
  };
}

function day(n: number): Date {
  return new Date(Date.UTC(2025, 0, 1) + n * DAY);
}

function grouper(services: Record<string, ServiceMatch> = {}, calls: string[] = []) {
  return createGrouper({
    matchService: (d) => {
      calls.push(d);
      return services[d] ?? null;
    },
    now: () => NOW,
  });
}

test('List-Id grouping beats From: one list, several sender addresses, one subscription', () => {
  const g = grouper();
  const a = g.add(msg({ listId: 'news.a.example', fromAddr: 'alice@a.example', date: day(1) }));
  const b = g.add(msg({ listId: 'news.a.example', fromAddr: 'Bob@B.example', fromName: '', date: day(2) }));
  assert.equal(a, b);
  const all = g.all();
  assert.equal(all.length, 1);
  const s = all[0]!;
  assert.equal(s.list_key, 'list:news.a.example');
  assert.equal(s.list_id, 'news.a.example');
  assert.equal(s.count, 2);
  // the newest message's address, and the newest non-empty display name
  assert.deepEqual(s.sender, { name: 'Shop', address: 'bob@b.example', domain: 'b.example' });
});

test('From grouping is per lower-cased address, not per domain', () => {
  const g = grouper();
  const n1 = g.add(msg({ fromAddr: 'news@shop.example' }));
  const n2 = g.add(msg({ fromAddr: 'NEWS@Shop.Example' }));
  const r = g.add(msg({ fromAddr: 'receipts@shop.example' }));
  assert.equal(n1, n2);
  assert.notEqual(n1, r);
  assert.deepEqual(
    g.all().map((s) => [s.list_key, s.count]),
    [
      ['from:news@shop.example', 2],
      ['from:receipts@shop.example', 1],
    ],
  );
});

test('ids are the first 16 hex digits of sha256(list_key), the same in two groupers', () => {
  const first = grouper().add(msg({ listId: 'news.a.example' }));
  const second = grouper().add(msg({ listId: 'news.a.example', fromAddr: 'other@a.example' }));
  const expected = createHash('sha256').update('list:news.a.example').digest('hex').slice(0, 16);
  assert.equal(first, expected);
  assert.equal(second, expected);
  assert.match(expected, /^[0-9a-f]{16}$/);
});

test('read rate is seen/count with two decimals', () => {
  const g = grouper();
  g.add(msg({ seen: true }));
  g.add(msg({ seen: false }));
  const id = g.add(msg({ seen: false }))!;
  assert.equal(g.get(id).read_rate, 0.33);
  g.add(msg({ seen: true }));
  g.add(msg({ seen: true }));
  assert.equal(g.get(id).read_rate, 0.6);
});

test('per_month: count over the span in 30-day months, at least one month', () => {
  const g = grouper();
  let id = '';
  for (let i = 0; i < 10; i++) id = g.add(msg({ date: day(i * 6) }))!; // days 0..54: 1.8 months
  const s = g.get(id);
  assert.equal(s.per_month, 5.56);
  assert.equal(s.first_seen, '2025-01-01T00:00:00.000Z');
  assert.equal(s.last_seen, '2025-02-24T00:00:00.000Z');

  const burst = grouper();
  for (let i = 0; i < 3; i++) id = burst.add(msg({ date: day(i) }))!;
  assert.equal(burst.get(id).per_month, 3);

  const undated = grouper();
  id = undated.add(msg({ date: null }))!;
  undated.add(msg({ date: null }));
  assert.deepEqual([undated.get(id).per_month, undated.get(id).first_seen, undated.get(id).last_seen], [2, null, null]);
});

test('dates in the future (by now) or before 1990 do not stretch the span', () => {
  const g = grouper();
  const id = g.add(msg({ date: day(10) }))!;
  g.add(msg({ date: new Date('2099-01-01T00:00:00Z') }));
  g.add(msg({ date: new Date('1970-01-01T00:00:00Z') }));
  const s = g.get(id);
  assert.deepEqual(
    [s.count, s.first_seen, s.last_seen, s.per_month],
    [3, day(10).toISOString(), day(10).toISOString(), 3],
  );
});

test('sample subjects: up to three distinct, most recent first, whatever the add order', () => {
  const g = grouper();
  let id = '';
  for (const [subject, d] of [
    ['C', 3],
    ['A', 1],
    ['E', 5],
    ['B', 2],
    ['E', 0],
    ['D', 4],
  ] as const) {
    id = g.add(msg({ subject, date: day(d) }))!;
  }
  g.add(msg({ subject: null, date: day(9) }));
  assert.deepEqual(g.get(id).sample_subjects, ['E', 'D', 'C']);
  // an old subject seen again recently moves up
  g.add(msg({ subject: 'A', date: day(8) }));
  assert.deepEqual(g.get(id).sample_subjects, ['A', 'E', 'D']);
});

test('junk_only is true only when every message sat in Junk; mailboxes are listed sorted', () => {
  const g = grouper();
  const id = g.add(msg({ mailbox: 'Junk', junk: true }))!;
  g.add(msg({ mailbox: 'Junk', junk: true }));
  assert.equal(g.get(id).junk_only, true);
  assert.deepEqual(g.get(id).mailboxes, ['Junk']);
  g.add(msg({ mailbox: 'INBOX', junk: false }));
  assert.equal(g.get(id).junk_only, false);
  assert.deepEqual(g.get(id).mailboxes, ['INBOX', 'Junk']);
});

test('service matching: the sender domain first, then parents down to two labels', () => {
  const netflix = { slug: 'netflix', name: 'Netflix', tier: 'easy', difficulty: 2.4 };
  const shopMail = { slug: 'shop-mail', name: 'Shop Mail', tier: 'effortless', difficulty: 0.8 };
  const calls: string[] = [];
  const g = grouper({ 'netflix.com': netflix, 'mail.shop.example': shopMail, 'shop.example': netflix }, calls);
  const n = g.add(msg({ fromAddr: 'info@members.mailer.netflix.com' }))!;
  assert.deepEqual(g.get(n).service, netflix);
  assert.deepEqual(calls, ['members.mailer.netflix.com', 'mailer.netflix.com', 'netflix.com']);
  const s = g.add(msg({ fromAddr: 'news@mail.shop.example' }))!;
  assert.deepEqual(g.get(s).service, shopMail); // the exact domain beats its parent
  calls.length = 0;
  const none = g.add(msg({ fromAddr: 'x@unknown.example' }))!;
  assert.equal(g.get(none).service, null);
  assert.deepEqual(calls, ['unknown.example']); // never the bare TLD
});

test('non-list messages are ignored', () => {
  const g = grouper();
  const none: UnsubscribeMethods = { one_click: null, http: [], mailto: [] };
  assert.equal(g.add(msg({ methods: none })), null); // From but no method
  assert.equal(g.add(msg({ methods: none, listId: 'news.a.example' })), null); // List-Id but no method
  assert.equal(g.add(msg({ from: null, listId: null })), null); // a method but no key
  assert.deepEqual(g.all(), []);
  assert.notEqual(g.add(msg({ from: null, listId: 'news.a.example' })), null); // List-Id alone is a key
});

test('methods are the newest message’s: older tokens may be dead, and older messages never override', () => {
  const g = grouper();
  const methods = (n: number, oc: boolean): UnsubscribeMethods => ({
    one_click: oc ? `https://shop.example/oc/${n}` : null,
    http: [`https://shop.example/oc/${n}`],
    mailto: [{ uri: `mailto:u${n}@shop.example`, to: `u${n}@shop.example`, subject: null, body: null }],
  });
  const id = g.add(msg({ methods: methods(1, true), date: day(1) }))!;
  g.add(msg({ methods: methods(3, true), date: day(3) }));
  g.add(msg({ methods: methods(2, false), date: day(2) })); // older: does not override
  assert.deepEqual(g.get(id).methods, methods(3, true));
  g.add(msg({ methods: methods(9, false), date: day(9) }));
  const m = g.get(id).methods;
  assert.equal(m.one_click, null); // the newest message dropped one-click
  assert.deepEqual(m.http, ['https://shop.example/oc/9']);
  assert.deepEqual(
    m.mailto.map((x) => x.to),
    ['u9@shop.example'],
  );
});

test('auth is the worst seen: fail > none > pass > unknown', () => {
  const g = grouper();
  const id = g.add(msg({ auth: { dkim: 'pass', spf: 'pass', dmarc: 'pass' } }))!;
  g.add(msg({ auth: { dkim: 'unknown', spf: 'none', dmarc: 'unknown' } }));
  assert.deepEqual(g.get(id).auth, { dkim: 'pass', spf: 'none', dmarc: 'pass' });
  g.add(msg({ auth: { dkim: 'fail', spf: 'pass', dmarc: 'pass' } }));
  assert.deepEqual(g.get(id).auth, { dkim: 'fail', spf: 'none', dmarc: 'pass' });
});

test('the sender name falls back to the List-Id name when no From has a display name', () => {
  const g = grouper();
  const id = g.add(msg({ listId: 'news.a.example', listName: 'A News', fromName: '' }))!;
  assert.equal(g.get(id).sender.name, 'A News');
});

test('all() lists the busiest subscription first; get() returns a copy', () => {
  const g = grouper();
  g.add(msg({ fromAddr: 'one@a.example' }));
  const busy = g.add(msg({ fromAddr: 'two@b.example' }))!;
  g.add(msg({ fromAddr: 'two@b.example' }));
  assert.deepEqual(
    g.all().map((s) => s.sender.address),
    ['two@b.example', 'one@a.example'],
  );
  g.get(busy).methods.http.push('https://tampered.example/');
  assert.deepEqual(g.get(busy).methods.http, ['https://shop.example/u']);
});

test('get() with an id the grouper never returned is a bug and throws', () => {
  assert.throws(() => grouper().get('0000000000000000'), /unknown subscription id/);
});

test('at most maxGroups subscriptions are kept; messages of further lists are dropped and counted', () => {
  const g = createGrouper({ matchService: () => null, maxGroups: 2 });
  assert.ok(g.add(msg({ fromAddr: 'a@one.example' })));
  assert.ok(g.add(msg({ fromAddr: 'b@two.example' })));
  assert.equal(g.add(msg({ fromAddr: 'c@three.example' })), null);
  assert.equal(g.add(msg({ fromAddr: 'c@three.example' })), null);
  assert.ok(g.add(msg({ fromAddr: 'a@one.example' }))); // a kept list still grows
  assert.equal(g.dropped, 2);
  assert.deepEqual(
    g.all().map((s) => [s.sender.address, s.count]),
    [
      ['a@one.example', 2],
      ['b@two.example', 1],
    ],
  );
});

test('deferred one-click evidence is checked for the newest message only, when a snapshot is taken', () => {
  const g = createGrouper({ matchService: () => null });
  const oneClick = (url: string) => ({ one_click: url, http: [url], mailto: [] });
  const signed = {
    authResults: ['mx.example.net; dkim=pass header.d=shop.example'],
    dkimSignatures: ['v=1; d=shop.example; s=s; h=from:list-unsubscribe:list-unsubscribe-post; b=AAAAAAAAAAAA'],
    fromDomain: 'shop.example',
  };
  const id = g.add(
    msg({
      date: day(1),
      methods: oneClick('https://shop.example/u/1'),
      oneClickEvidence: { ...signed, authResults: [] },
    }),
  )!;
  assert.equal(g.get(id).methods.one_click, null);
  assert.equal(g.get(id).one_click_withheld, 'unauthenticated');
  g.add(msg({ date: day(3), methods: oneClick('https://shop.example/u/3'), oneClickEvidence: signed }));
  // an older message's evidence, failing, changes nothing: the newest one counts
  g.add(
    msg({
      date: day(2),
      methods: oneClick('https://shop.example/u/2'),
      oneClickEvidence: { ...signed, authResults: [] },
    }),
  );
  assert.equal(g.get(id).methods.one_click, 'https://shop.example/u/3');
  assert.equal(g.get(id).one_click_withheld, null);
  assert.deepEqual(g.get(id).methods.http, ['https://shop.example/u/3']);
});

test('since_unsubscribe counts the dated messages after an earlier unsubscription, only for those lists', () => {
  const g = createGrouper({
    matchService: () => null,
    now: () => NOW,
    unsubscribedAt: new Map([['list:left.example', day(10).getTime()]]),
  });
  for (const n of [5, 10, 11, 20]) g.add(msg({ listId: 'left.example', date: day(n) }));
  g.add(msg({ listId: 'left.example', date: null })); // undated: neither before nor after
  g.add(msg({ listId: 'kept.example', date: day(30) }));
  const byKey = new Map(g.all().map((s) => [s.list_key, s]));
  // day 10 itself is the moment of the request, not after it
  assert.equal(byKey.get('list:left.example')!.since_unsubscribe, 2);
  assert.equal('since_unsubscribe' in byKey.get('list:kept.example')!, false);
});
