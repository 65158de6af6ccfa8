import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { loopbackCatalog } from '../../../test/helpers/catalog.ts';
import type { ServiceState } from '../../catalog/view.ts';
import { servicePage } from './service-page.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: { LOG_LEVEL: 'silent' }, runtime: { worker: false } });
});
after(() => t.close());

const page = async (slug: string) => {
  const res = await t.app.inject({ method: 'GET', url: `/services/${slug}` });
  assert.equal(res.statusCode, 200);
  return res.body;
};
const section = (body: string, id: string) => {
  const start = body.indexOf(`aria-labelledby="${id}"`);
  if (start < 0) return null;
  return body.slice(start, body.indexOf('</section>', start));
};

describe('the evidence on a service page', () => {
  test('each step names the source it rests on, with its link, whether it was read, and the day', async () => {
    const r = t.catalog.bySlug.get('sky')!.record;
    const steps = section(await page('sky'), 'steps-title')!;
    const read = r.sources.find((s) => s.id === r.steps[0]!.source_ids[0])!;
    assert.ok(read.confirmed && read.url && read.read_at);
    const items = steps.split('<li>').slice(1);
    assert.ok(items.length >= r.steps.length);
    assert.ok(steps.includes(`href="${read.url}"`));
    assert.match(
      steps,
      /<p class="fact-state ok"><span class="state">Confirmed<\/span> by <a href="[^"]+" rel="noopener noreferrer">How to cancel your subscription<\/a> <span class="muted">\(Sky UK\)<\/span>, read 26 November 2026 <a class="source-no" href="#source-s1"/,
    );
    const unread = section(await page('netflix'), 'steps-title')!;
    assert.match(
      unread,
      /<p class="fact-state pending"><span class="state">Unconfirmed<\/span>: rests on <a href="https:\/\/help\.netflix\.com\/en\/node\/407"[^>]*>How to cancel Netflix<\/a> <span class="muted">\(Netflix\)<\/span>, not read <a class="source-no" href="#source-s1"/,
    );
  });

  test('phone, letter and chat exits are shown as the official page gives them, with its source', async () => {
    const r = t.catalog.bySlug.get('sky')!.record;
    const exits = section(await page('sky'), 'exits-title')!;
    const phone = r.cancel.contacts!.find((c) => c.type === 'phone')!;
    assert.ok(exits.includes(`>${phone.phone}</a>`));
    assert.ok(exits.includes('opening hours not stated on the page read'));
    const postal = r.cancel.contacts!.find((c) => c.type === 'postal_mail')!;
    assert.ok(exits.includes(`<address>${postal.address!.join('<br>')}</address>`));
    assert.match(exits, /By chat:/);
    assert.match(exits, /fact-state ok"><span class="state">Confirmed/);
    assert.equal(section(await page('netflix'), 'exits-title'), null, 'no exits section without contacts');
  });

  test('the rights of the record’s region are shown with their sources; a region without a file has none', async () => {
    const gb = t.catalog.rights.get('GB')!;
    const rights = section(await page('sky'), 'rights-title')!;
    assert.match(rights, /Your rights in the United Kingdom/);
    for (const s of gb.statements) assert.ok(rights.includes(`id="right-${s.id}"`), s.id);
    for (const s of gb.sources) {
      assert.ok(rights.includes(`href="${s.url}"`), s.url ?? s.id);
    }
    assert.match(rights, /Disputing the charge with your card issuer/);
    assert.match(rights, /read \d{1,2} \w+ 20\d\d/);
    assert.equal(t.catalog.rights.has('NL'), false);
    assert.equal(section(await page('basic-fit'), 'rights-title'), null);
  });

  test('every link is listed with its latest check; none has run here', async () => {
    const links = section(await page('sky'), 'links-title')!;
    const r = t.catalog.bySlug.get('sky')!.record;
    for (const url of [r.cancel.help_url, r.website, ...r.sources.map((s) => s.url)]) {
      if (url) assert.ok(links.includes(`href="${url}"`), url);
    }
    assert.match(links, /Not checked yet/);
    assert.doesNotMatch(links, /checked \d/);
    // every link never checked offers the check (shown by service.js; hidden without scripts)
    const rows = links.split('<tr>').slice(2);
    for (const row of rows)
      assert.match(
        row,
        /<button type="button" class="button secondary small check-link" hidden>Check this link<\/button>/,
      );
  });
});

describe('link check results on a service page', () => {
  const catalog = loopbackCatalog([
    {
      slug: 'checked',
      url: 'http://127.0.0.1:9/cancel',
      help: 'http://127.0.0.1:9/help',
      sources: ['http://127.0.0.1:9/read'],
    },
  ]);
  const entry = catalog.bySlug.get('checked')!;
  const state: ServiceState = {
    link_status: {
      outcome: 'ok',
      http_status: 200,
      final_url: 'http://127.0.0.1:9/cancel',
      checked_at: '2026-11-30T04:00:05.000Z',
    },
    last_verified: '2026-11-30T04:00:05.000Z',
    links: {
      'http://127.0.0.1:9/cancel': {
        outcome: 'ok',
        http_status: 200,
        final_url: 'http://127.0.0.1:9/cancel',
        checked_at: '2026-11-30T04:00:05.000Z',
        last_reached_at: '2026-11-30T04:00:05.000Z',
      },
      'http://127.0.0.1:9/help': {
        outcome: 'broken',
        http_status: 404,
        final_url: 'http://127.0.0.1:9/help',
        checked_at: '2026-11-30T04:00:06.000Z',
        last_reached_at: '2026-11-23T04:00:06.000Z',
      },
    },
  };

  test('each link shows its outcome and when it was checked and last reached', () => {
    const body = servicePage(t.config, catalog, entry, state);
    const links = section(body, 'links-title')!;
    const rows = links.split('<tr>').slice(2);
    assert.equal(rows.length, 3);
    assert.match(
      rows[0]!,
      /cancel page, website<\/td><td class="lc-cell"[^>]*><span class="linkcheck-result lc-ok">working, checked 30 Nov 2026, 04:00 UTC<\/span><\/td><td[^>]*>30 Nov 2026, 04:00 UTC/,
    );
    assert.match(
      rows[1]!,
      /help article<\/td><td class="lc-cell"[^>]*><span class="linkcheck-result lc-broken">broken \(HTTP 404\), checked 30 Nov 2026, 04:00 UTC<\/span><\/td><td[^>]*>23 Nov 2026, 04:00 UTC/,
    );
    assert.match(
      rows[2]!,
      /a source<\/td><td class="lc-cell"[^>]*><span class="linkcheck-result lc-none">Not checked yet<\/span> <button[^>]*>Check this link</,
    );
    // checked links offer no "Check this link"; the summary's button re-checks
    assert.doesNotMatch(rows[0]!, /<button/);
    assert.match(body, /id="recheck" hidden>Re-check this link</);
    const sources = section(body, 'sources-title')!;
    assert.doesNotMatch(sources, /linkcheck-result/, 'a source whose link was never checked says nothing of it');
  });
});
