import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { findMoney, parseAmount } from './money.ts';

const read = (text: string) =>
  findMoney(text).map((m) => [text.slice(m.start, m.end), m.minor, m.currency, m.negative]);

describe('amounts in receipt text', () => {
  test('US and European number formats give the same amount', () => {
    assert.deepEqual(read('Total: $1,234.56'), [['$1,234.56', 123456, 'USD', false]]);
    assert.deepEqual(read('Gesamt 1.234,56 €'), [['1.234,56 €', 123456, 'EUR', false]]);
    assert.deepEqual(read('Montant 1 234,56 €'), [['1 234,56 €', 123456, 'EUR', false]]);
    assert.deepEqual(read('CHF 1’234.50'), [['CHF 1’234.50', 123450, 'CHF', false]]);
    assert.deepEqual(read('12,99 € pro Monat'), [['12,99 €', 1299, 'EUR', false]]);
    assert.deepEqual(read('€12.99'), [['€12.99', 1299, 'EUR', false]]);
  });

  test('currency codes before or after the amount, with or without a space', () => {
    assert.deepEqual(read('EUR 12.99'), [['EUR 12.99', 1299, 'EUR', false]]);
    assert.deepEqual(read('12.99USD'), [['12.99USD', 1299, 'USD', false]]);
    assert.deepEqual(read('£4.99 a week'), [['£4.99', 499, 'GBP', false]]);
    assert.deepEqual(read('1 234,56 zł'), [['1 234,56 zł', 123456, 'PLN', false]]);
  });

  test('a currency between two numbers belongs to the one after it', () => {
    assert.deepEqual(read('Order 1234 USD 12.99'), [['USD 12.99', 1299, 'USD', false]]);
  });

  test('a bare dollar is the US dollar unless the message names another dollar', () => {
    assert.equal(findMoney('Total $9.99')[0]!.currency, 'USD');
    assert.equal(findMoney('Total $9.99 CAD')[0]!.currency, 'CAD');
    assert.equal(findMoney('Prices in AUD. Total $9.99')[0]!.currency, 'AUD');
    assert.equal(findMoney('CA$9.99')[0]!.currency, 'CAD');
    assert.deepEqual(read('AUD and NZD accepted: $9.99'), []);
  });

  test('a crown without a code is no currency; with one it is', () => {
    assert.deepEqual(read('99 kr'), []);
    assert.deepEqual(read('99 SEK, 99 kr'), [
      ['99 SEK', 9900, 'SEK', false],
      ['99 kr', 9900, 'SEK', false],
    ]);
  });

  test('currencies without minor units keep whole numbers', () => {
    assert.deepEqual(read('¥1,200'), [['¥1,200', 1200, 'JPY', false]]);
    assert.deepEqual(read('₩14,900'), [['₩14,900', 14900, 'KRW', false]]);
  });

  test('minus signs and accounting parentheses mark credits', () => {
    assert.deepEqual(read('Discount -$5.00'), [['-$5.00', 500, 'USD', true]]);
    assert.deepEqual(read('Credit ($5.00)'), [['($5.00)', 500, 'USD', true]]);
    assert.deepEqual(read('€-3,00'), [['€-3,00', 300, 'EUR', true]]);
  });

  test('numbers that are not amounts are not read as amounts', () => {
    assert.deepEqual(read('Date 12.99.2026 €'), []);
    assert.deepEqual(read('price $12,3456'), []);
    assert.deepEqual(read('it costs 1.2.3 €'), []);
    assert.deepEqual(read('12.99 per month'), []);
    assert.deepEqual(read('Order #A1234 shipped'), []);
    assert.deepEqual(read('USDA 12.99'), []);
  });
});

describe('parseAmount', () => {
  test('the last separator is decimal with one or two digits after it, else it groups thousands', () => {
    assert.equal(parseAmount('1,234', 2), 123400);
    assert.equal(parseAmount('1.234', 2), 123400);
    assert.equal(parseAmount('1,5', 2), 150);
    assert.equal(parseAmount('1.234.567,89', 2), 123456789);
    assert.equal(parseAmount('1,234,567.89', 2), 123456789);
  });

  test('mixed or misplaced group separators are not numbers', () => {
    assert.equal(parseAmount('1,234.567,89', 2), null);
    assert.equal(parseAmount('12,34,567', 2), null);
    assert.equal(parseAmount('1234,567', 2), null);
    assert.equal(parseAmount('1.234.56', 2), null);
    assert.equal(parseAmount('0,999', 2), null);
  });

  test('more than nine integer digits is not a price', () => {
    assert.equal(parseAmount('1234567890', 2), null);
    assert.equal(parseAmount('123456789', 2), 12345678900);
  });

  test('decimals beyond the minor unit are rounded', () => {
    assert.equal(parseAmount('1200.50', 0), 1201);
    assert.equal(parseAmount('1200.49', 0), 1200);
  });
});
