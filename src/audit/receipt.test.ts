import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { htmlToText } from './html-text.ts';
import { readReceipt, type ServiceNames } from './receipt.ts';

const netflix = { name: 'Netflix', aliases: ['Netflix Standard', 'Netflix Premium'] };
const prime = { name: 'Amazon Prime', aliases: ['Prime', 'Amazon Prime membership'] };
const disney = { name: 'Disney+', aliases: ['Disney Plus'] };
const google = { name: 'Google One', aliases: ['Google Drive storage'] };
const read = (subject: string, text: string, service: ServiceNames = netflix) =>
  readReceipt({ subject, text, service });

describe('receipts: the amount charged', () => {
  test('a US receipt: the total, not its subtotal or tax, and the stated billing range', () => {
    const r = read(
      'Your Netflix receipt',
      [
        'Thanks for your payment for your Netflix membership.',
        'Plan: Standard',
        'Subtotal: $15.49',
        'Tax: $1.24',
        'Total: $16.73',
        'Billing period: Jan 5, 2026 - Feb 4, 2026',
      ].join('\n'),
    );
    assert.deepEqual(r, { kind: 'charge', amount: { minor: 1673, currency: 'USD' }, period: 'P1M' });
  });

  test('a German invoice in European format, tax included', () => {
    const r = read('Ihre Rechnung', 'Netflix\nAbonnement: Standard\nGesamtbetrag 1.234,56 € (inkl. MwSt.)\nmonatlich');
    assert.deepEqual(r, { kind: 'charge', amount: { minor: 123456, currency: 'EUR' }, period: 'P1M' });
  });

  test('a French receipt with the amount after its label and the currency after the amount', () => {
    const r = read('Votre reçu Netflix', 'Abonnement Netflix Standard\nMontant total : 12,99 € par mois');
    assert.deepEqual(r, { kind: 'charge', amount: { minor: 1299, currency: 'EUR' }, period: 'P1M' });
  });

  test('a weekly charge in pounds', () => {
    const r = read('Your receipt', 'Netflix weekly box subscription\nTotal paid: £44.99\nCharged every week');
    assert.deepEqual(r, { kind: 'charge', amount: { minor: 4499, currency: 'GBP' }, period: 'P1W' });
  });

  test('an HTML-only receipt: the total in its table, the struck-through old price and the hidden preheader ignored', () => {
    const text = htmlToText(`<div style="display:none">Save 50% today: only $1.99</div>
<table><tr><td>Netflix Premium plan</td><td>monthly</td></tr><tr><td>Was</td><td><s>$25.99</s></td></tr>
<tr><td>Total charged</td><td>$22.99</td></tr></table><p>Thanks for your payment.</p>`);
    assert.deepEqual(read('Your receipt', text), {
      kind: 'charge',
      amount: { minor: 2299, currency: 'USD' },
      period: 'P1M',
    });
  });

  test('a label on the line above its amount', () => {
    const r = read('Receipt', 'Netflix membership\nTotal\n$9.99');
    assert.deepEqual(r, { kind: 'charge', amount: { minor: 999, currency: 'USD' }, period: null });
  });

  test('one unlabelled amount in a receipt is its charge; two are not guessed between', () => {
    assert.deepEqual(read('Your Netflix receipt', 'Netflix subscription\nThanks! $9.99'), {
      kind: 'charge',
      amount: { minor: 999, currency: 'USD' },
      period: null,
    });
    assert.deepEqual(read('Your Netflix receipt', 'Netflix subscription\n$9.99 and $12.99'), {
      kind: 'charge',
      amount: null,
      period: null,
    });
  });

  test('a receipt without any amount is a charge of unknown amount', () => {
    const r = read('Your Netflix receipt', 'Thanks for your payment. Your Netflix membership continues.');
    assert.deepEqual(r, { kind: 'charge', amount: null, period: null });
  });

  test('an annual renewal notice is an upcoming charge with its yearly price', () => {
    const r = read(
      'Your Amazon Prime membership renews soon',
      'Your Prime membership will renew on March 3, 2026.\nYou will be charged $139.00 per year.\nGet 20% off Prime Video Channels from $4.99',
      prime,
    );
    assert.deepEqual(r, { kind: 'upcoming', amount: { minor: 13900, currency: 'USD' }, period: 'P1Y' });
  });

  test('a "has been renewed" message is a charge', () => {
    const r = read(
      'Your Disney+ subscription has been renewed',
      'Disney+ Premium, annual\nAmount charged: $139.99',
      disney,
    );
    assert.deepEqual(r, { kind: 'charge', amount: { minor: 13999, currency: 'USD' }, period: 'P1Y' });
  });
});

describe('receipts: what is never counted as spend', () => {
  test('promotional figures beside a real charge are not the charge', () => {
    const r = read(
      'Your Netflix receipt',
      'Netflix Standard plan\nYou paid $15.49\nSave $5 when you switch to annual billing: only $149/year\nGet 20% off merch: now $19.99',
    );
    assert.deepEqual(r, { kind: 'charge', amount: { minor: 1549, currency: 'USD' }, period: null });
  });

  test('a marketing mail with prices bills nothing', () => {
    assert.deepEqual(
      read('New on Netflix this week', 'Watch now. Plans from $6.99/month. Save $5 on your first month.'),
      {
        kind: null,
        why: 'not_billing',
      },
    );
    assert.equal(read('Special offer for you', 'Netflix: upgrade to Premium for just $2 more per month').kind, null);
  });

  test('an advert with a charge-like word is still an offer', () => {
    const r = read('Your Netflix receipt', 'Netflix subscription payment\nLimited offer: total $4.99 for 3 months');
    assert.equal(r.kind, 'charge');
    assert.equal(r.kind === 'charge' ? r.amount : 'x', null);
  });

  test('credits, discounts and conversions are not the charge', () => {
    const r = read('Receipt', 'Netflix plan\nDiscount -$2.00\nCredit ($1.00)\nTotal €9.99 (approx. $10.80)');
    assert.deepEqual(r, { kind: 'charge', amount: { minor: 999, currency: 'EUR' }, period: null });
  });

  test('failed payments, refunds and cancellations bill nothing', () => {
    assert.deepEqual(read('Payment declined', 'We could not process your payment of $15.49 for Netflix.'), {
      kind: null,
      why: 'payment_failed',
    });
    assert.deepEqual(read('Your refund', 'We refunded $15.49 to your card for Netflix.'), {
      kind: null,
      why: 'refund',
    });
    assert.deepEqual(read('Your membership has been cancelled', 'Netflix membership, $15.49 a month'), {
      kind: null,
      why: 'cancelled',
    });
  });

  test('a cancelled shop order is not a cancelled membership', () => {
    assert.deepEqual(read('Your Amazon.com order #112-555 has been cancelled', 'Order Total: $45.99', prime), {
      kind: null,
      why: 'not_billing',
    });
  });

  test('a shop order from a domain that also sells a membership is not the membership', () => {
    const r = read(
      'Your Amazon.com order #123-4567890 has shipped',
      'FREE Prime delivery\nOrder Total: $45.99\nPayment: Visa',
      prime,
    );
    assert.equal(r.kind, null);
  });

  test('a billing platform receipt for another service is not this service', () => {
    const r = read(
      'Your Google Play Order Receipt',
      'Google Play\nDuolingo Super (Duolingo)\nAuto-renewing subscription\nTotal: $12.99/month',
      google,
    );
    assert.deepEqual(r, { kind: null, why: 'other_service' });
  });
});

describe('receipts: wordings seen in the wild', () => {
  test('"+ tax" after a price is not an offer', () => {
    const r = read('Your Netflix receipt', 'Netflix Standard plan, monthly: $15.49 + tax');
    assert.deepEqual(r, { kind: 'charge', amount: { minor: 1549, currency: 'USD' }, period: 'P1M' });
  });

  test('a trial: the zero charge today is not the price; the price after the trial is', () => {
    const r = read(
      'Welcome to Netflix',
      'Your free trial has started.\nTotal due today: $0.00\nAfter your trial you’ll be charged $15.49/month.',
    );
    assert.deepEqual(r, { kind: 'upcoming', amount: { minor: 1549, currency: 'USD' }, period: 'P1M' });
  });

  test('a membership fee line without any other amount', () => {
    const r = read('Your Amazon Prime receipt', 'Amazon Prime membership fee: $14.99', prime);
    assert.deepEqual(r, { kind: 'charge', amount: { minor: 1499, currency: 'USD' }, period: null });
  });

  test('a plan name from the catalog says the charge recurs', () => {
    const spotify = { name: 'Spotify Premium', aliases: ['Spotify'], plans: ['Premium Individual', 'Premium Family'] };
    const text = 'Spotify\nPremium Family\nPayment method: Visa ending 4242\nTotal €17.99 (incl. VAT €3.00)';
    assert.deepEqual(read('Your Spotify Premium receipt', text, spotify), {
      kind: 'charge',
      amount: { minor: 1799, currency: 'EUR' },
      period: null,
    });
    assert.deepEqual(read('Your Spotify Premium receipt', text, { ...spotify, plans: [] }), {
      kind: null,
      why: 'not_recurring',
    });
  });

  test('rupees written Rs.', () => {
    const r = read('Your Netflix invoice', 'Netflix Mobile plan\nAmount paid: Rs. 149');
    assert.deepEqual(r, { kind: 'charge', amount: { minor: 14900, currency: 'INR' }, period: null });
  });
});
