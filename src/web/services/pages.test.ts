import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { recordCheckedOk } from '../../../test/helpers/catalog.ts';
import { makeRecord } from '../../../test/helpers/record.ts';
import { waitFor } from '../../../test/helpers/wait-for.ts';
import { childrenNamed, parseXml } from '../../../test/helpers/xml.ts';
import { catalogFrom } from '../../catalog/load.ts';
import { AXES } from '../../catalog/vocabulary.ts';
import { DEFAULT_LAYOUT, pointsAttr, radarPoints } from './radar.ts';
import { servicePage } from './service-page.ts';

const BASE = 'https://optout.example';
let t: TestApp;
before(async () => {
  t = await startTestApp({ env: { BASE_URL: BASE, LOG_LEVEL: 'silent' }, runtime: { worker: false } });
});
after(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url });

const slugsIn = (body: string) => [...body.matchAll(/href="\/services\/([a-z0-9-]+)"/g)].map((m) => m[1]);

describe('/services', () => {
  test('lists the catalog by name, one page at a time, with links to the next page', async () => {
    const res = await get('/services');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    const first = slugsIn(res.body);
    assert.deepEqual(
      first,
      t.catalog.entries.slice(0, 24).map((e) => e.record.slug),
    );
    assert.match(res.body, /href="\/services\?page=2" rel="next"/);
    const second = slugsIn((await get('/services?page=2')).body);
    assert.deepEqual(
      second,
      t.catalog.entries.slice(24, 48).map((e) => e.record.slug),
    );
  });

  test('searches with q (best match first), like the API', async () => {
    const { body } = await get('/services?q=netflix');
    assert.equal(slugsIn(body)[0], 'netflix');
    assert.match(body, /result(s)? for “netflix”/);
    assert.match(body, /<input id="q" name="q" type="search" value="netflix"/);
  });

  test('browses a category with cat, and ignores an unknown one', async () => {
    const { body } = await get('/services?cat=gyms');
    const gyms = t.catalog.entries.filter((e) => e.record.category === 'gyms').map((e) => e.record.slug);
    assert.deepEqual(slugsIn(body).slice(0, gyms.length), gyms.slice(0, 24));
    assert.match(body, /<option value="gyms" selected>/);
    const odd = await get('/services?cat=nonsense&page=abc');
    assert.equal(odd.statusCode, 200);
    assert.match(odd.body, new RegExp(`All ${t.catalog.entries.length} services`));
  });

  test('a search with no match says so', async () => {
    const { body } = await get('/services?q=zzzzqqq');
    assert.match(body, /No service matches/);
  });
});

describe('/services/{slug}', () => {
  test('shows steps, traps, plans, sources with their confirmation, and canonical/OG tags', async () => {
    const res = await get('/services/netflix');
    assert.equal(res.statusCode, 200);
    const r = t.catalog.bySlug.get('netflix')!.record;
    assert.match(res.body, /<h1>How to cancel Netflix<\/h1>/);
    for (const s of r.steps) assert.ok(res.body.includes(s.title), s.title);
    for (const trap of r.traps) assert.ok(res.body.includes(`id="trap-${trap.id}"`), trap.id);
    assert.match(res.body, /Offered: <strong>Standard with ads<\/strong> <span class="muted">\(billed monthly\)/);
    assert.match(res.body, /0 of 2 sources confirmed/);
    assert.match(res.body, /<span class="state">Unconfirmed<\/span>/);
    assert.match(res.body, new RegExp(`<link rel="canonical" href="${BASE}/services/netflix">`));
    assert.match(res.body, new RegExp(`<meta property="og:url" content="${BASE}/services/netflix">`));
    assert.match(res.body, /<script type="module" src="\/assets\/service\.js\?v=/);
    assert.match(res.body, /id="tone" hidden/);
    assert.match(res.body, /id="recheck" hidden/);
  });

  test('a price shows the day it was read and its source, and is marked when read over twelve months ago', () => {
    const r = makeRecord();
    r.sources[0] = {
      id: 's1',
      kind: 'official_help',
      publisher: 'Example',
      title: 'Plans and prices',
      url: 'https://www.example.com/help/plans',
      confirmed: true,
      read_at: '2026-01-02',
    };
    const day = (monthsAgo: number) => {
      const d = new Date();
      d.setUTCMonth(d.getUTCMonth() - monthsAgo);
      return d.toISOString().slice(0, 10);
    };
    r.plans = [
      {
        name: 'Monthly',
        price: { amount_minor: 999, currency: 'USD', as_of: day(1), source_id: 's1' },
        billing_period: 'P1M',
        commitment: null,
      },
      {
        name: 'Yearly',
        price: { amount_minor: 9900, currency: 'USD', as_of: day(14), source_id: 's1' },
        billing_period: 'P1Y',
        commitment: null,
      },
    ];
    const c = catalogFrom([r], t.catalog.categories);
    const body = servicePage(t.config, c, c.bySlug.get(r.slug)!, undefined);
    assert.match(body, /<span class="state">Confirmed<\/span>/);
    assert.ok(
      body.includes(`$9.99 per month <span class="muted">(read ${day(1)}, <a href="#source-s1">source</a>)`),
      body,
    );
    assert.ok(
      body.includes(`(read ${day(14)}, <strong>older than 12 months</strong>, <a href="#source-s1">source</a>)`),
    );
  });

  test('draws the six-axis radar of the record, with a table of the same scores', async () => {
    const e = t.catalog.bySlug.get('adobe-creative-cloud')!;
    const { body } = await get('/services/adobe-creative-cloud');
    const svg = /<svg class="radar"[\s\S]*?<\/svg>/.exec(body)![0];
    assert.match(svg, /role="img"/);
    assert.match(svg, /<title id="radar-title">/);
    assert.match(svg, /<desc id="radar-desc">/);
    assert.equal(svg.match(/<line /g)?.length, 6);
    const points = pointsAttr(
      radarPoints(
        AXES.map((a) => e.friction.axes[a]),
        DEFAULT_LAYOUT,
      ),
    );
    assert.ok(svg.includes(`class="radar-shape" points="${points}"`));
    const table = /<table class="scores">[\s\S]*?<\/table>/.exec(body)![0];
    for (const a of AXES) {
      assert.match(
        table,
        new RegExp(
          `<th scope="row">${a[0]!.toUpperCase()}${a.slice(1)}<span[^>]*>[^<]*</span></th><td class="num">${e.friction.axes[a]}<`,
        ),
      );
    }
    assert.match(body, new RegExp(`${e.friction.difficulty.toFixed(1)} out of 10</strong>`));
  });

  test('shows the latest link check, from the same in-memory snapshot as the API', async () => {
    const before = await get('/services/spotify');
    assert.match(before.body, /has not been checked yet/);
    // Written as a link-check worker of another instance on the same database would: this
    // process learns of it when its snapshot next refreshes (within STATE_MAX_AGE_MS).
    await recordCheckedOk(t.db, 'spotify', 'https://www.spotify.com/account', '2026-11-20T10:15:00.000Z');
    const body = await waitFor(async () => {
      const page = (await get('/services/spotify')).body;
      return page.includes('has not been checked yet') ? undefined : page;
    });
    assert.match(body, /Last checked 20 Nov 2026, 10:15 UTC: working \(HTTP 200\)\./);
    assert.match(body, /data-checked-at="2026-11-20T10:15:00.000Z"/);
    assert.match(body, /Last reached and verified/);
    const api = (await get('/api/v1/services/spotify')).json().data;
    assert.equal(api.link_status.checked_at, '2026-11-20T10:15:00.000Z');
  });

  test('an unknown slug is an HTML 404', async () => {
    const res = await get('/services/no-such-service');
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['content-type']), /^text\/html/);
  });
});

describe('/sitemap.xml', () => {
  test('is well-formed and lists home, the services index, every service, the blog and the trust pages', async () => {
    const res = await get('/sitemap.xml');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/xml/);
    const root = parseXml(res.body);
    assert.equal(root.name, 'urlset');
    const locs = childrenNamed(root, 'url').map((u) => childrenNamed(u, 'loc')[0]!.text);
    for (const e of t.catalog.entries) assert.ok(locs.includes(`${BASE}/services/${e.record.slug}`), e.record.slug);
    for (const u of [
      '/',
      '/services',
      '/blog/',
      '/blog/how-to-unsubscribe-all-emails/',
      '/blog/unsubscribe-tool-alternatives/',
      '/privacy',
      '/security',
      '/about',
    ])
      assert.ok(locs.includes(`${BASE}${u}`), u);
    assert.equal(locs.length, t.catalog.entries.length + 2 + 1 + 5 + 3);
  });
});
