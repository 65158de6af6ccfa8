import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { frequencyOf } from './frequency.ts';
import { type DatedReading, monthlyTotals, type ServiceFacts, serviceSpend, sortServices } from './spend.ts';

const facts = (over: Partial<ServiceFacts> = {}): ServiceFacts => ({
  slug: 'netflix',
  name: 'Netflix',
  tier: 'easy',
  difficulty: 2.4,
  guide_url: 'https://optout.example/services/netflix',
  plan_periods: ['P1M', 'P1Y'],
  ...over,
});
const at = (iso: string) => new Date(iso);
const charge = (iso: string, minor: number | null, currency = 'USD', period: string | null = null): DatedReading => ({
  date: at(iso),
  reading: { kind: 'charge', amount: minor === null ? null : { minor, currency }, period },
});

describe('spend per service', () => {
  test('the newest priced message sets the amount; a yearly charge is a twelfth a month', () => {
    const s = serviceSpend(facts(), [
      charge('2025-03-01T10:00:00Z', 9999, 'USD', 'P1Y'),
      charge('2026-03-01T10:00:00Z', 11999, 'USD', 'P1Y'),
    ])!;
    assert.equal(s.amount, 119.99);
    assert.equal(s.currency, 'USD');
    assert.equal(s.billing_period, 'P1Y');
    assert.equal(s.monthly_amount, 10);
    assert.equal(s.last_charged, '2026-03-01T10:00:00.000Z');
    assert.equal(s.receipts, 2);
    assert.equal(s.tier, 'easy', 'the catalog’s tier and the score it derives from come along');
    assert.equal(s.difficulty, 2.4);
  });

  test('a weekly charge is 52/12 of it a month', () => {
    const s = serviceSpend(facts(), [charge('2026-03-01T10:00:00Z', 1200, 'GBP', 'P1W')])!;
    assert.equal(s.monthly_amount, 52);
  });

  test('without a stated period, the spacing of the charges gives it', () => {
    const s = serviceSpend(facts(), [
      charge('2026-01-05T10:00:00Z', 1549),
      charge('2026-02-05T10:00:00Z', 1549),
      charge('2026-03-05T10:00:00Z', 1549),
    ])!;
    assert.equal(s.billing_period, 'P1M');
    assert.equal(s.monthly_amount, 15.49);
  });

  test('one charge without a period takes the catalog’s only billing period, and no other', () => {
    assert.equal(
      serviceSpend(facts({ plan_periods: ['P1M', 'P1M'] }), [charge('2026-01-05T10:00:00Z', 999)])!.billing_period,
      'P1M',
    );
    const unknown = serviceSpend(facts(), [charge('2026-01-05T10:00:00Z', 999)])!;
    assert.equal(unknown.billing_period, null);
    assert.equal(unknown.monthly_amount, null);
    assert.equal(unknown.amount, 9.99);
  });

  test('receipts without a parsable amount list the service with amount null', () => {
    const s = serviceSpend(facts(), [charge('2026-01-05T10:00:00Z', null)])!;
    assert.deepEqual(
      { amount: s.amount, currency: s.currency, billing_period: s.billing_period, monthly_amount: s.monthly_amount },
      { amount: null, currency: null, billing_period: null, monthly_amount: null },
    );
    assert.equal(s.receipts, 1);
  });

  test('a renewal notice gives the price but is not a charge', () => {
    const s = serviceSpend(facts(), [
      {
        date: at('2026-02-20T10:00:00Z'),
        reading: { kind: 'upcoming', amount: { minor: 13900, currency: 'USD' }, period: 'P1Y' },
      },
    ])!;
    assert.equal(s.amount, 139);
    assert.equal(s.last_charged, null);
  });

  test('a cancellation newer than every charge leaves the service out; an older one does not', () => {
    const found = [
      charge('2026-01-05T10:00:00Z', 999, 'USD', 'P1M'),
      charge('2026-02-05T10:00:00Z', 999, 'USD', 'P1M'),
    ];
    assert.equal(serviceSpend(facts(), found, at('2026-02-20T10:00:00Z')), null);
    assert.equal(serviceSpend(facts(), found, at('2026-01-20T10:00:00Z'))?.amount, 9.99, 'subscribed again since');
  });

  test('no billing messages: no entry', () => {
    assert.equal(serviceSpend(facts(), []), null);
  });
});

describe('monthly totals', () => {
  test('added per currency, never converted, unknown amounts left out', () => {
    const services = sortServices([
      serviceSpend(facts({ slug: 'a', name: 'A' }), [charge('2026-01-01T00:00:00Z', 1299, 'EUR', 'P1M')])!,
      serviceSpend(facts({ slug: 'b', name: 'B' }), [charge('2026-01-01T00:00:00Z', 11988, 'USD', 'P1Y')])!,
      serviceSpend(facts({ slug: 'c', name: 'C' }), [charge('2026-01-01T00:00:00Z', 1549, 'USD', 'P1M')])!,
      serviceSpend(facts({ slug: 'd', name: 'D' }), [charge('2026-01-01T00:00:00Z', null)])!,
    ]);
    assert.deepEqual(monthlyTotals(services), [
      { currency: 'EUR', amount: 12.99 },
      { currency: 'USD', amount: 25.48 },
    ]);
    assert.deepEqual(
      services.map((s) => s.slug),
      ['a', 'c', 'b', 'd'],
    );
  });
});

describe('frequency', () => {
  const sub = (id: string, per_month: number, read_rate: number, count = 10) => ({
    id,
    sender: { name: id, address: `${id}@x.example`, domain: 'x.example' },
    per_month,
    read_rate,
    count,
  });

  test('mail per month, the never-read share and reading time', () => {
    const f = frequencyOf([sub('a', 30, 0), sub('b', 12, 0.5), sub('c', 6, 1)]);
    assert.equal(f.per_month, 48);
    assert.equal(f.never_read_share, 0.33);
    // (12 × 0.5 + 6 × 1) read messages × 10 s = 2 minutes
    assert.equal(f.reading_minutes_per_month, 2);
    assert.deepEqual(
      f.top.map((t) => t.id),
      ['a', 'b', 'c'],
    );
  });

  test('the top lists at most ten senders, most mail first', () => {
    const f = frequencyOf(Array.from({ length: 14 }, (_, i) => sub(`s${i}`, i, 0)));
    assert.equal(f.top.length, 10);
    assert.equal(f.top[0]!.id, 's13');
  });

  test('no subscriptions: zeros, not NaN', () => {
    assert.deepEqual(frequencyOf([]), { per_month: 0, never_read_share: 0, reading_minutes_per_month: 0, top: [] });
  });
});
