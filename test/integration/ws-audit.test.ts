/**
 * The subscription audit over /ws against a private Dovecot holding generated list mail and a
 * generated set of billing mail (test/fixtures/receipt-mail.ts): receipts in USD, EUR and GBP,
 * US and European formats, monthly, yearly and weekly, HTML-only and plain text, adverts with
 * prices, a forged receipt, a receipt in Junk, and receipts from senders not in the catalog.
 * The figures are the generator's answer key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { byMailbox, generateMailbox } from '../fixtures/mail-generator.ts';
import { generateReceipts } from '../fixtures/receipt-mail.ts';
import { listenWs, startTestApp, type TestApp } from '../helpers/app.ts';
import { type Dovecot, startDovecot } from '../helpers/dovecot.ts';
import { allowLoopback } from '../helpers/loopback.ts';
import { trustTestCa } from '../helpers/tls-ca.ts';
import { connectWs, type Msg, type WsClient } from '../helpers/ws-client.ts';

const ORIGIN = 'http://127.0.0.1:3999';
const PASSWORD = 'audit-pw';
const USER = 'alice@example.test';
const now = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000);
const receipts = generateReceipts(now);
const lists = generateMailbox({ seed: 12, lists: 8, messagesPerList: [3, 12], plain: 0, nasty: false, now });

let dovecot: Dovecot;
let t: TestApp;
let wsUrl: string;

before(async () => {
  trustTestCa();
  const listMail = byMailbox(lists.messages);
  dovecot = await startDovecot({
    users: [
      {
        user: USER,
        password: PASSWORD,
        mailboxes: {
          INBOX: [...(listMail.INBOX ?? []), ...receipts.messages.filter((m) => m.mailbox === 'INBOX')].sort(
            (a, b) => a.date.getTime() - b.date.getTime(),
          ),
          Archive: listMail.Archive ?? [],
          Junk: [...(listMail.Junk ?? []), ...receipts.messages.filter((m) => m.mailbox === 'Junk')],
        },
      },
    ],
  });
  t = await startTestApp({
    env: { BASE_URL: ORIGIN, OUTBOUND_ALLOW_HOSTS: allowLoopback(dovecot.imapsPort) },
    runtime: { worker: false },
  });
  wsUrl = await listenWs(t);
});

after(async () => {
  await t?.close();
  await dovecot?.stop();
});

async function scanned(): Promise<{ ws: WsClient; done: Msg; subs: Msg[]; session: string }> {
  const ws = await connectWs(wsUrl, ORIGIN);
  const ready = await ws.next('ready');
  ws.send({
    type: 'scan',
    provider: 'custom',
    email: USER,
    password: PASSWORD,
    host: '127.0.0.1',
    port: dovecot.imapsPort,
    tls: 'implicit',
    mailboxes: ['default', 'junk'],
  });
  const done = await ws.next('done', 60_000);
  const subs = new Map<string, Msg>();
  for (const m of ws.all('subscription')) subs.set(m.subscription.id, m.subscription);
  return { ws, done, subs: [...subs.values()], session: ready.session };
}

const round2 = (n: number) => Math.round(n * 100) / 100;

describe('the audit over /ws', () => {
  let first: Awaited<ReturnType<typeof scanned>>;
  let audit: Msg;

  before(async () => {
    first = await scanned();
    first.ws.send({ type: 'audit' });
    audit = (await first.ws.next('audit', 60_000)).audit;
  });
  after(() => first?.ws.close());

  test('answers progress with phase audit, then the audit', () => {
    const types = first.ws.messages.map((m) => (m.type === 'progress' ? `progress:${m.phase}` : m.type));
    const firstAudit = types.indexOf('progress:audit');
    assert.ok(firstAudit > types.indexOf('done'), 'after the scan');
    assert.ok(types.indexOf('audit') > firstAudit);
    const last = first.ws
      .all('progress')
      .filter((p) => p.phase === 'audit')
      .at(-1)!;
    assert.equal(last.done, last.total, 'every chosen receipt read');
    assert.ok(last.total > 0);
  });

  test('each service costs what its receipts say, in its own currency and period', () => {
    for (const want of receipts.spend) {
      const got = audit.spend.services.find((s: Msg) => s.slug === want.slug);
      assert.ok(got, `${want.slug} is listed`);
      assert.deepEqual(
        {
          amount: got.amount,
          currency: got.currency,
          billing_period: got.billing_period,
          monthly_amount: got.monthly_amount,
          last_charged: got.last_charged,
          receipts: got.receipts,
        },
        {
          amount: want.amount,
          currency: want.currency,
          billing_period: want.billing_period,
          monthly_amount: want.monthly_amount,
          last_charged: want.last_charged?.toISOString() ?? null,
          receipts: want.receipts,
        },
        want.slug,
      );
      assert.equal(got.guide_url, `${ORIGIN}/services/${want.slug}`);
      assert.equal(got.tier, t.catalog.bySlug.get(want.slug)!.friction.tier);
      assert.equal(got.difficulty, t.catalog.bySlug.get(want.slug)!.friction.difficulty);
    }
  });

  test('monthly totals per currency, nothing converted', () => {
    assert.deepEqual(audit.spend.monthly_total, receipts.monthlyTotal);
  });

  test('no service is invented: failed payments, adverts, forgeries, Junk and unknown senders add nothing', () => {
    assert.deepEqual(audit.spend.services.map((s: Msg) => s.slug).sort(), receipts.spend.map((s) => s.slug).sort());
    for (const slug of receipts.absent)
      assert.equal(
        audit.spend.services.some((s: Msg) => s.slug === slug),
        false,
      );
  });

  test('frequency comes from the scan’s subscriptions', () => {
    const subs = first.subs;
    assert.equal(audit.messages, first.done.scanned);
    assert.equal(audit.senders, subs.length);
    const perMonth = subs.reduce((n, s) => n + s.per_month, 0);
    assert.equal(audit.frequency.per_month, round2(perMonth));
    assert.equal(audit.frequency.never_read_share, round2(subs.filter((s) => s.read_rate === 0).length / subs.length));
    const readMinutes = (subs.reduce((n, s) => n + s.per_month * s.read_rate, 0) * 10) / 60;
    assert.equal(audit.frequency.reading_minutes_per_month, round2(readMinutes));
    const top = [...subs].sort((a, b) => b.per_month - a.per_month || b.count - a.count);
    assert.deepEqual(
      audit.frequency.top.map((x: Msg) => x.per_month),
      top.slice(0, 10).map((s) => s.per_month),
    );
    assert.ok(
      audit.frequency.top.every((x: Msg) => subs.some((s) => s.id === x.id && s.sender.address === x.sender.address)),
    );
  });

  test('the period runs from the oldest mail seen to the end of the scan', () => {
    const oldest = Math.min(
      ...first.subs.map((s) => Date.parse(s.first_seen)),
      ...receipts.messages.map((m) => m.date.getTime()),
    );
    assert.ok(Date.parse(audit.period.from) <= oldest + 86_400_000);
    assert.ok(Date.parse(audit.period.to) <= Date.now());
    assert.ok(Date.parse(audit.period.to) > now.getTime());
  });

  test('asked again for the same scan, the same audit comes back', async () => {
    first.ws.send({ type: 'audit' });
    const again = await first.ws.next('audit', 30_000);
    assert.deepEqual(again.audit, audit);
  });

  test('a connection that resumes the session gets the audit again', async () => {
    const ws = await connectWs(wsUrl, ORIGIN);
    await ws.next('ready');
    ws.send({ type: 'resume', session: first.session });
    await ws.next('resumed');
    assert.deepEqual((await ws.next('audit')).audit, audit);
    await ws.close();
  });

  test('nothing of the receipts is logged', () => {
    const logs = t.logs.join('');
    for (const needle of ['17.99', 'Quittung', 'Streamly', PASSWORD])
      assert.equal(logs.includes(needle), false, needle);
  });
});

describe('cancelling an audit', () => {
  test('cancel answers with the audit so far, marked cancelled; it is not kept, so the next audit reads again', async () => {
    const second = await scanned();
    second.ws.send({ type: 'audit' });
    second.ws.send({ type: 'cancel' });
    const stopped = await second.ws.next('audit', 60_000);
    assert.equal(stopped.cancelled, true);
    second.ws.send({ type: 'audit' });
    const full = await second.ws.next('audit', 60_000);
    assert.equal(full.cancelled, false);
    assert.deepEqual(full.audit.spend.monthly_total, receipts.monthlyTotal);
    await second.ws.close();
  });
});

describe('the audit message out of order', () => {
  test('before any scan it is INVALID_MESSAGE and the connection stays usable', async () => {
    const ws = await connectWs(wsUrl, ORIGIN);
    await ws.next('ready');
    ws.send({ type: 'audit' });
    assert.equal((await ws.next('error')).code, 'INVALID_MESSAGE');
    ws.send({ type: 'quota', email: USER });
    await ws.next('quota');
    await ws.close();
  });

  test('extra fields are refused', async () => {
    const ws = await connectWs(wsUrl, ORIGIN);
    await ws.next('ready');
    ws.send({ type: 'audit', email: USER });
    assert.equal((await ws.next('error')).code, 'INVALID_MESSAGE');
    await ws.close();
  });
});
