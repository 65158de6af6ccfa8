/**
 * Every service page of the real catalog, rendered: the tier word always matches the score
 * beside it, no editors' note reaches the page, unknown prices and facts are named once instead
 * of shown as rows, and every fact says whether a page that was read confirms it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { makeRecord } from '../../../test/helpers/record.ts';
import { tierOf } from '../../catalog/friction/compute.ts';
import { catalogFrom } from '../../catalog/load.ts';
import { escapeHtml } from '../html.ts';
import { TIER_LABEL } from '../shared/words.ts';
import { verdict } from './labels.ts';
import { isEditorial, publicText } from './public-text.ts';
import { servicePage } from './service-page.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: { LOG_LEVEL: 'silent' }, runtime: { worker: false } });
});
after(() => t.close());

const BADGE =
  /<span class="verdict-badge tier-([a-z_]+)"><span class="tier-word">([^<]+)<\/span> <span class="tier-score">(\d+\.\d)<span class="tier-max">\/10<\/span><\/span><\/span>/g;
const LABEL_TO_TIER = new Map(Object.entries(TIER_LABEL).map(([k, v]) => [v, k]));

/** The page's visible text (no tags, no attribute values), for what a reader sees. */
const text = (body: string) =>
  body
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');

const pages = new Map<string, string>();
async function page(slug: string) {
  if (!pages.has(slug)) pages.set(slug, (await t.app.inject({ url: `/services/${slug}` })).body);
  return pages.get(slug)!;
}

describe('tier and score', () => {
  test('derive from one number: every tier from effortless to trap matches its thresholds', () => {
    for (let d = 0; d <= 100; d++) {
      const v = verdict(d / 10);
      assert.equal(v.tier, tierOf(Number(v.score)), v.score);
      assert.equal(v.label, TIER_LABEL[v.tier]);
    }
    assert.equal(verdict(1.49).score, '1.5');
    assert.equal(verdict(1.49).tier, 'easy', 'the tier follows the score as shown');
  });

  test('on every service page and every index card of the catalog the word agrees with the score beside it', async () => {
    for (const e of t.catalog.entries) {
      const body = await page(e.record.slug);
      const badges = [...body.matchAll(BADGE)];
      assert.equal(badges.length, 1, e.record.slug);
      const [, cls, word, score] = badges[0]!;
      assert.equal(LABEL_TO_TIER.get(word!), tierOf(Number(score)), `${e.record.slug}: ${word} ${score}`);
      assert.equal(cls, tierOf(Number(score)));
      assert.equal(Number(score), e.friction.difficulty, e.record.slug);
      assert.equal(cls, e.friction.tier, `${e.record.slug}: the API says the same`);
    }
    const pagesOfIndex = Math.ceil(t.catalog.entries.length / 24);
    let cards = 0;
    for (let p = 1; p <= pagesOfIndex; p++) {
      const body = (await t.app.inject({ url: `/services?page=${p}` })).body;
      for (const [, cls, word, score] of body.matchAll(BADGE)) {
        cards++;
        assert.equal(LABEL_TO_TIER.get(word!), tierOf(Number(score)), `${word} ${score}`);
        assert.equal(cls, tierOf(Number(score)));
      }
    }
    assert.equal(cards, t.catalog.entries.length);
  });
});

describe('no noise on a service page', () => {
  test('no editors’ note of any record reaches its page: no source’s “via”, no editorial sentence', async () => {
    for (const e of t.catalog.entries) {
      const r = e.record;
      const body = text(await page(r.slug));
      for (const s of r.sources) if (s.via) assert.ok(!body.includes(s.via), `${r.slug}: via of ${s.id}`);
      assert.doesNotMatch(
        body,
        /editorial|not (yet )?established|re-verif|earlier pass|stored (corpora|copy|material)|re-read|project note|Not yet confirmed|§\s?\d+ Nr\.\s*$/i,
        r.slug,
      );
      const notes = [r.notes, ...r.cancel.channels.map((c) => c.note), ...(r.cancel.contacts ?? []).map((c) => c.note)];
      for (const n of notes) if (n && publicText(n)) assert.ok(body.includes(publicText(n)), `${r.slug}: ${n}`);
    }
  });

  test('a note keeps what helps a reader and drops what speaks to editors', () => {
    assert.equal(
      publicText(
        'Planet Fitness clubs are mostly franchised. Whether it can be cancelled online was not established from a page read.',
      ),
      'Planet Fitness clubs are mostly franchised.',
    );
    assert.equal(publicText('Settings, Billing, Cancel (editorial knowledge)'), '');
    assert.equal(publicText('A tacitly renewed contract can be ended with one month’s notice (§309 Nr.'), '');
    assert.equal(
      publicText('Memberships sponsored by a carrier (e.g. Metro by T-Mobile) end at once.'),
      'Memberships sponsored by a carrier (e.g. Metro by T-Mobile) end at once.',
    );
    assert.equal(isEditorial('Choose the Free plan and confirm the downgrade.'), false);
  });

  test('an unknown price has no row: the plans without one are named, and “prices” is said once among the unknowns', async () => {
    for (const e of t.catalog.entries) {
      const body = await page(e.record.slug);
      assert.doesNotMatch(body, /<td[^>]*>unknown/, e.record.slug);
      const unknownLines = body.match(/<p class="unknown"/g)?.length ?? 0;
      assert.ok(unknownLines <= 1, e.record.slug);
      if (e.record.plans.every((p) => !p.price)) {
        assert.match(body, /Unknown: [^<]*\bprices\b/, e.record.slug);
        assert.doesNotMatch(body, /<table class="plans/, e.record.slug);
      }
    }
    const r = makeRecord();
    r.sources[0] = {
      id: 's1',
      kind: 'official_help',
      publisher: 'Example',
      title: 'Plans',
      url: 'https://www.example.com/help/plans',
      confirmed: true,
      read_at: '2026-11-26',
    };
    r.plans = [
      {
        name: 'Monthly',
        price: { amount_minor: 999, currency: 'USD', as_of: '2026-11-26', source_id: 's1' },
        billing_period: 'P1M',
        commitment: null,
      },
      { name: 'Family', price: null, billing_period: 'P1M', commitment: null },
    ];
    r.verification.requires = null;
    const c = catalogFrom([r], t.catalog.categories);
    const body = servicePage(t.config, c, c.bySlug.get(r.slug)!, undefined);
    const table = /<table class="plans[\s\S]*?<\/table>/.exec(body)![0];
    assert.match(table, /Monthly/);
    assert.doesNotMatch(table, /Family/);
    assert.match(body, /Also offered: <strong>Family<\/strong>/);
    assert.match(body, /Unknown: what you need to prove who you are and the price of Family\./);
    assert.doesNotMatch(body, /<dt>You will need<\/dt>/);
  });

  test('every step, trap and fact says whether a read page confirms it, with the page’s link and the day it was read', async () => {
    for (const e of t.catalog.entries) {
      const r = e.record;
      const body = await page(r.slug);
      const steps = body.slice(body.indexOf('id="guide-steps"'), body.indexOf('id="guide-status"'));
      const items = steps.split('<li>').slice(1);
      assert.equal(items.length, r.steps.length, r.slug);
      for (const [i, item] of items.entries()) {
        const confirmed = r.steps[i]!.source_ids.map((id) => r.sources.find((s) => s.id === id)!).filter(
          (s) => s.confirmed,
        );
        if (confirmed.length) {
          assert.match(item, /<span class="state">Confirmed<\/span> by <a href="/, `${r.slug} step ${i + 1}`);
          for (const s of confirmed) {
            assert.ok(item.includes(`href="${escapeHtml(s.url!)}"`), `${r.slug} step ${i + 1}`);
            assert.match(item, /read \d{1,2} \w+ 20\d\d/);
          }
        } else assert.match(item, /<span class="state">Unconfirmed<\/span>: rests on /, `${r.slug} step ${i + 1}`);
      }
      const traps = body.match(/<li class="trap"[\s\S]*?<\/li>/g) ?? [];
      assert.equal(traps.length, r.traps.length);
      for (const trap of traps) assert.match(trap, /class="fact-state (ok|pending)"/, r.slug);
      const facts = /<dl class="facts">([\s\S]*?)<\/dl>/.exec(body)![1]!;
      for (const row of facts.split('<div>').slice(1)) assert.match(row, /class="fact-state (ok|pending)"/, r.slug);
    }
  });
});
