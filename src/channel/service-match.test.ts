/**
 * What a matched sender carries on the wire (`service` of a subscription, protocol 2.4): the
 * catalog entry's friction tier and the score it derives from, so the browser shows them as one
 * badge like the service pages do.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testCatalog } from '../../test/helpers/app.ts';
import { tierOf } from '../catalog/friction/compute.ts';
import { serviceMatcher } from './service-match.ts';
import { Subscription } from './wire-subscription.ts';

describe('service match', () => {
  test('every sender domain of the catalog gives its service, with the friction tier and score', async () => {
    const catalog = await testCatalog();
    const match = serviceMatcher(catalog);
    let checked = 0;
    for (const e of catalog.entries) {
      for (const d of e.record.domains.email) {
        const m = match(`news.${d}`);
        assert.deepEqual(m, {
          slug: e.record.slug,
          name: e.record.name,
          tier: e.friction.tier,
          difficulty: e.friction.difficulty,
        });
        assert.equal(m!.tier, tierOf(m!.difficulty), `${e.record.slug}: the tier derives from the score`);
        checked++;
      }
    }
    assert.ok(checked > 0);
    assert.equal(match('unknown.example'), null);
  });

  test('the wire schema requires the score beside the tier, within 0–10', () => {
    const service = Subscription.shape.service.unwrap();
    assert.equal(service.safeParse({ slug: 'a', name: 'A', tier: 'easy', difficulty: 2.4 }).success, true);
    assert.equal(service.safeParse({ slug: 'a', name: 'A', tier: 'easy' }).success, false);
    assert.equal(service.safeParse({ slug: 'a', name: 'A', tier: 'trap', difficulty: 10.5 }).success, false);
  });
});
