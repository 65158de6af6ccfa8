import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestApp } from '../../test/helpers/app.ts';
import { ENGINES, startAppOn } from '../../test/helpers/engines.ts';

for (const engine of ENGINES) {
  describe(`analyzer on ${engine}`, () => {
    let t: TestApp;
    before(async () => {
      t = await startAppOn(engine, { runtime: { worker: false } });
    });
    after(() => t.close());

    const analyze = (payload: unknown, contentType = 'application/json') =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/analyzer',
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
        headers: { 'content-type': contentType },
      });

    describe('POST /api/v1/analyzer', () => {
      test('returns six axes, difficulty, tier and one reason per axis', async () => {
        const res = await analyze({ slug: 'netflix' });
        assert.equal(res.statusCode, 200);
        const { code, data } = res.json();
        assert.equal(code, '0');
        assert.deepEqual(Object.keys(data.friction).sort(), [
          'channel',
          'cost',
          'path',
          'retention',
          'timing',
          'verification',
        ]);
        for (const v of Object.values(data.friction))
          assert.ok(Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 10);
        assert.equal(data.difficulty, Math.round(data.difficulty * 10) / 10);
        assert.ok(['effortless', 'easy', 'moderate', 'hard', 'very_hard', 'trap'].includes(data.tier));
        assert.equal(data.why.length, 6);
        assert.equal(data.why.filter((w: { drives: boolean }) => w.drives).length, 1);
        assert.equal(data.why.find((w: { drives: boolean }) => w.drives).axis, data.driver);
        for (const w of data.why) {
          assert.ok(w.facts.length > 0, `${w.axis} names its facts`);
          assert.ok(w.explanation.length > 0);
          assert.ok(w.sources.length > 0, `${w.axis} names its sources`);
        }
      });

      test('agrees with the friction shown on the service record', async () => {
        const a = (await analyze({ slug: 'netflix' })).json().data;
        const rec = (await t.app.inject({ method: 'GET', url: '/api/v1/services/netflix' })).json().data;
        assert.deepEqual(a.friction, rec.friction.axes);
        assert.equal(a.difficulty, rec.friction.difficulty);
        assert.equal(a.tier, rec.friction.tier);
      });

      test('every catalog service can be analysed and the tiers spread across the scale', async () => {
        const tiers = new Set<string>();
        for (const e of t.catalog.entries) {
          const res = await analyze({ slug: e.record.slug });
          assert.equal(res.statusCode, 200, e.record.slug);
          tiers.add(res.json().data.tier);
        }
        assert.ok(tiers.size >= 3, [...tiers].join(','));
      });

      test('an unknown slug is 404 NOT_FOUND', async () => {
        const res = await analyze({ slug: 'no-such-service' });
        assert.equal(res.statusCode, 404);
        assert.equal(res.json().code, 'NOT_FOUND');
      });

      test('a missing slug is 400 naming body.slug', async () => {
        const res = await analyze({});
        assert.equal(res.statusCode, 400);
        assert.match(res.json().message, /body\.slug/);
      });

      test('an unknown field is refused, naming it', async () => {
        const res = await analyze({ slug: 'netflix', extra: 1 });
        assert.equal(res.statusCode, 400);
        assert.match(res.json().message, /extra/);
      });

      test('a non-JSON body is 415', async () => {
        const res = await analyze('slug=netflix', 'application/x-www-form-urlencoded');
        assert.equal(res.statusCode, 415);
      });
    });
  });
}
