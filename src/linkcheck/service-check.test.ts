import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { loopbackRecord } from '../../test/helpers/catalog.ts';
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts';
import { catalogFrom } from '../catalog/load.ts';
import { syncCatalog } from '../catalog/sync.ts';
import { readStates } from '../catalog/view.ts';
import { createOutboundGuard, type OutboundGuard } from '../outbound/guard.ts';
import { type Db, openPglite } from '../storage/db.ts';
import { migrate } from '../storage/migrate.ts';
import { checkService } from './service-check.ts';

const page = (res: ServerResponse, title = 'Cancel your plan') =>
  res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${title}</title><h1>${title}</h1>`);

describe('checking every link of a service', () => {
  let target: HttpTarget;
  let db: Db;
  let guard: OutboundGuard;
  let helpUp = false;
  const deps = () => ({ db, guard, userAgent: 'optout-linkcheck/1.0 (test)' });

  before(async () => {
    target = await startHttpTarget((req, res) => {
      if (req.url === '/cancel' || req.url === '/read') return page(res);
      if (req.url === '/help') return helpUp ? page(res, 'Help') : res.writeHead(404).end('<title>Not Found</title>');
      if (req.url === '/old-account') return res.writeHead(301, { location: '/account' }).end();
      if (req.url === '/account') return page(res, 'Account');
      res.writeHead(404).end();
    });
    guard = createOutboundGuard({ allowHosts: [`127.0.0.1:${target.port}`] });
    db = await openPglite(undefined);
    await migrate(db);
  });
  after(async () => {
    await db.close();
    await guard.close();
    await target.close();
  });

  const record = () =>
    loopbackRecord({
      slug: 'many-links',
      url: `${target.origin}/cancel`,
      help: `${target.origin}/help`,
      steps: [`${target.origin}/old-account`, `${target.origin}/cancel`],
      sources: [`${target.origin}/read`],
    });

  test('each distinct link is fetched once and its outcome recorded; the cancel link sets the service state', async () => {
    const r = record();
    await syncCatalog(db, catalogFrom([r], []));
    const before = target.seen.length;
    const results = await checkService(deps(), r, 'job-1');
    assert.deepEqual(
      results.map((x) => [new URL(x.url).pathname, x.outcome, x.http_status]),
      [
        ['/cancel', 'ok', 200],
        ['/help', 'broken', 404],
        ['/old-account', 'moved', 200],
        ['/read', 'ok', 200],
      ],
    );
    assert.equal(target.seen.length - before, 5, 'four links, one of them redirected once');
    const state = (await readStates(db)).get('many-links')!;
    assert.equal(state.link_status?.outcome, 'ok');
    assert.equal(state.last_verified, state.link_status?.checked_at);
    assert.equal(Object.keys(state.links).length, 4);
    const help = state.links[`${target.origin}/help`]!;
    assert.equal(help.outcome, 'broken');
    assert.equal(help.last_reached_at, null, 'never reached');
    assert.equal(state.links[`${target.origin}/old-account`]!.final_url, `${target.origin}/account`);
  });

  test('a retried job re-checks nothing it already recorded', async () => {
    const before = target.seen.length;
    assert.deepEqual(await checkService(deps(), record(), 'job-1'), []);
    assert.equal(target.seen.length, before);
    const { rows } = await db.query<{ n: number }>("select count(*)::int as n from link_checks where job_id = 'job-1'");
    assert.equal(rows[0]!.n, 4);
  });

  test('a link that recovers shows when it was reached; one that fails later keeps that time', async () => {
    helpUp = true;
    await checkService(deps(), record(), 'job-2');
    const reached = (await readStates(db)).get('many-links')!.links[`${target.origin}/help`]!;
    assert.equal(reached.outcome, 'ok');
    assert.equal(reached.last_reached_at, reached.checked_at);
    helpUp = false;
    await checkService(deps(), record(), 'job-3');
    const failed = (await readStates(db)).get('many-links')!.links[`${target.origin}/help`]!;
    assert.equal(failed.outcome, 'broken');
    assert.ok(failed.checked_at > reached.checked_at);
    assert.equal(failed.last_reached_at, reached.checked_at);
    const history = await db.query<{ n: number }>('select count(*)::int as n from link_checks where url = $1', [
      `${target.origin}/help`,
    ]);
    assert.equal(history.rows[0]!.n, 3, 'every check stays in the history');
  });
});
