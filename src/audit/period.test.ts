import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { monthlyMinor, onePeriod, periodFromCadence, periodFromRange, periodsIn } from './period.ts';

const days = (...offsets: number[]) => offsets.map((d) => new Date(Date.UTC(2026, 0, 1) + d * 86_400_000));

describe('billing periods', () => {
  test('period words in English, German, French and Spanish', () => {
    for (const [text, period] of [
      ['$9.99/mo', 'P1M'],
      ['€99 per year', 'P1Y'],
      ['billed annually', 'P1Y'],
      ['£4.99 a week', 'P1W'],
      ['every 4 weeks', 'P4W'],
      ['quarterly plan', 'P3M'],
      ['12-month subscription', 'P1Y'],
      ['monatlich kündbar', 'P1M'],
      ['9,99 € pro Jahr', 'P1Y'],
      ['12,99 € par mois', 'P1M'],
      ['plan semanal', 'P1W'],
      ['every 6 months', 'P6M'],
    ] as const) {
      assert.equal(onePeriod(text), period, text);
    }
  });

  test('"every 4 weeks" is one period, not also a week', () => {
    assert.deepEqual(
      periodsIn('billed every 4 weeks').map((p) => p.period),
      ['P4W'],
    );
  });

  test('a text naming two periods has no one period', () => {
    assert.equal(onePeriod('monthly, or save with annual billing'), null);
    assert.equal(onePeriod('thanks for your payment'), null);
  });

  test('a stated billing range gives its period, whatever the date format', () => {
    assert.equal(periodFromRange('Billing period: Jan 5, 2026 - Feb 4, 2026'), 'P1M');
    assert.equal(periodFromRange('Leistungszeitraum 01.03.2026 – 31.03.2026'), 'P1M');
    assert.equal(periodFromRange('Service period 2026-01-05 to 2027-01-04'), 'P1Y');
    assert.equal(periodFromRange('for 5 January 2026 – 11 January 2026'), 'P1W');
    assert.equal(periodFromRange('01/05/2026 - 02/04/2026'), 'P1M');
    assert.equal(periodFromRange('Dec 20 – Jan 19, 2026'), 'P1M');
    assert.equal(periodFromRange('from 3 to 5 items'), null);
  });

  test('the spacing of charges gives the period when most gaps agree', () => {
    assert.equal(periodFromCadence(days(0, 31, 59, 90)), 'P1M');
    assert.equal(periodFromCadence(days(0, 7, 14, 21, 28)), 'P1W');
    assert.equal(periodFromCadence(days(0, 365)), 'P1Y');
    assert.equal(periodFromCadence(days(0)), null);
    assert.equal(periodFromCadence(days(0, 3, 50, 51)), null);
  });

  test('a charge normalised to a month', () => {
    assert.equal(monthlyMinor(12000, 'P1Y'), 1000);
    assert.equal(monthlyMinor(1200, 'P1W'), 5200);
    assert.equal(monthlyMinor(999, 'P1M'), 999);
    assert.equal(monthlyMinor(3000, 'P3M'), 1000);
    assert.equal(monthlyMinor(1200, 'P4W'), 1300);
    assert.equal(monthlyMinor(999, 'PT1H'), null);
  });
});
