import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeRecord } from '../../../test/helpers/record.ts';
import { validateRecord } from '../validate.ts';
import { computeFriction, tierOf } from './compute.ts';

const src = ['s1'];

describe('cf-1.0 friction', () => {
  test('the base fixture is itself a valid record', () => {
    assert.deepEqual(validateRecord('catalog/services/example-service.json', makeRecord()).issues, []);
  });

  test('a one-click online cancel with no offers is effortless', () => {
    const f = computeFriction(makeRecord());
    assert.equal(f.tier, 'effortless');
    assert.ok(f.difficulty < 1.5);
    assert.deepEqual(f.axes, { path: 0, channel: 0, retention: 0, timing: 0, verification: 0, cost: 0 });
  });

  test('an online cancel behind one optional offer and no refund stays easy at worst', () => {
    const f = computeFriction(
      makeRecord({ retention: { level: 'one_optional', source_ids: src }, cost: { refund: 'none' } }),
    );
    assert.ok(['effortless', 'easy'].includes(f.tier), f.tier);
  });

  test('an in-person-only cancel with a notice period is hard or worse', () => {
    const f = computeFriction(
      makeRecord({
        category: 'gyms',
        cancel: { channels: [{ type: 'in_person', source_ids: src }], deep_link: false, clicks: null },
        timing: { commitment: 'P1Y', notice_period: 'P30D', renews_for_fixed_term: true },
      }),
    );
    assert.equal(f.axes.channel, 10);
    assert.ok(f.difficulty >= 4.5, String(f.difficulty));
    assert.ok(['hard', 'very_hard', 'trap'].includes(f.tier));
    assert.equal(f.driver, 'channel');
  });

  test('one severe barrier cannot be averaged away (floor = worst axis − 3)', () => {
    const f = computeFriction(
      makeRecord({
        cost: {
          fees: [
            {
              kind: 'remaining_term',
              description: 'The rest of the term is due.',
              disclosed_at: 'signup',
              source_ids: src,
            },
          ],
        },
      }),
    );
    assert.equal(f.axes.cost, 10);
    assert.equal(f.floor, 7);
    assert.equal(f.difficulty, 7);
    assert.equal(f.driver, 'cost');
  });

  test('no working exit is 10.0 and a trap', () => {
    const f = computeFriction(makeRecord({ no_working_exit: true }));
    assert.equal(f.difficulty, 10);
    assert.equal(f.tier, 'trap');
  });

  test('unknown facts score a stated default and say so', () => {
    const f = computeFriction(
      makeRecord({ retention: { level: null, source_ids: src }, timing: { known: false }, cost: { known: false } }),
    );
    const factors = f.details.flatMap((d) => d.factors);
    for (const code of ['retention:unknown', 'timing:unknown', 'cost:unknown']) assert.ok(factors.includes(code), code);
    assert.ok(f.details.every((d) => d.explanation.length > 0));
  });

  test('a phone-only cancel after an online signup scores channel 8', () => {
    const f = computeFriction(makeRecord({ cancel: { channels: [{ type: 'phone', source_ids: src }] } }));
    assert.equal(f.axes.channel, 8);
    assert.equal(f.tier, 'hard');
  });

  test('the same record always gives the same result', () => {
    const r = makeRecord({ retention: { level: 'several', source_ids: src } });
    assert.deepEqual(computeFriction(r), computeFriction(structuredClone(r)));
  });

  test('tier boundaries follow the published table', () => {
    const cases: [number, string][] = [
      [0, 'effortless'],
      [1.4, 'effortless'],
      [1.5, 'easy'],
      [2.9, 'easy'],
      [3, 'moderate'],
      [4.5, 'hard'],
      [6, 'very_hard'],
      [7.4, 'very_hard'],
      [7.5, 'trap'],
      [10, 'trap'],
    ];
    for (const [d, tier] of cases) assert.equal(tierOf(d), tier, String(d));
  });
});
