import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loopbackCatalog } from '../../test/helpers/catalog.ts';
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts';
import { loadConfig } from '../config.ts';
import { createOutboundGuard, type OutboundGuard } from '../outbound/guard.ts';
import { lockDataDir } from '../storage/lock.ts';
import { runCheckCommand } from './check-command.ts';
import { storedLinkSummary } from './link-summary.ts';

const ok = (res: ServerResponse) =>
  res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Cancel</title><h1>Cancel</h1>');

describe('npm run catalog:check against loopback sites', () => {
  let target: HttpTarget;
  let guard: OutboundGuard;
  let dataDir: string;
  before(async () => {
    target = await startHttpTarget((req, res) =>
      req.url?.endsWith('/gone') ? res.writeHead(404).end('<title>Not Found</title>') : ok(res),
    );
    guard = createOutboundGuard({ allowHosts: [`127.0.0.1:${target.port}`] });
    dataDir = await mkdtemp(join(tmpdir(), 'optout-check-'));
  });
  after(async () => {
    await guard.close();
    await target.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const catalog = () =>
    loopbackCatalog([
      { slug: 'first', url: `${target.origin}/first/cancel`, help: `${target.origin}/first/gone` },
      { slug: 'second', url: `${target.origin}/second/cancel`, sources: [`${target.origin}/second/help`] },
    ]);
  const run = async (args: string[], dir = dataDir) => {
    const out: string[] = [];
    const err: string[] = [];
    const config = loadConfig({ DATA_DIR: dir, BASE_URL: 'https://optout.test' });
    const code = await runCheckCommand(args, {
      config,
      catalog: catalog(),
      guard,
      io: { out: (l) => out.push(l), err: (l) => err.push(l) },
    });
    return { code, out, err, config };
  };

  test('checks every link of every service, prints each result, records them where the report reads them', async () => {
    const { code, out, err, config } = await run([]);
    assert.equal(code, 0, err.join('\n'));
    assert.equal(out[0], 'checking the links of 2 services');
    const rows = out.filter((l) => l.includes(target.origin));
    assert.equal(rows.length, 4);
    assert.ok(
      rows.some((l) => /^broken\s+404\s+first\s+\S+\/first\/gone\s+http 404$/.test(l)),
      rows.join('\n'),
    );
    assert.ok(
      rows.some((l) => /^ok\s+200\s+second\s+\S+\/second\/help\s+http 200$/.test(l)),
      rows.join('\n'),
    );
    assert.match(out.at(-2)!, /^checked 4 links of 2 services from \S+ to \S+$/);
    assert.match(out.at(-1)!, /^links checked: 4 of 4 \(100\.0%\), between \S+ and \S+: broken 1, ok 3$/);
    assert.equal(target.seen.filter((s) => s.url === '/first/cancel').length, 1);
    assert.match(
      String(target.seen[0]!.headers['user-agent']),
      /^optout-linkcheck\/1\.0 \(\+https:\/\/optout\.test\/docs\)$/,
    );

    const stored = await storedLinkSummary(config, catalog());
    assert.ok('links' in stored);
    assert.equal(stored.links.checked, 4);
    assert.deepEqual(stored.links.outcomes, { ok: 3, broken: 1 });
  });

  test('named services only; an unknown name is UNKNOWN_SERVICE before anything is fetched', async () => {
    const before = target.seen.length;
    const one = await run(['second']);
    assert.equal(one.code, 0);
    assert.equal(target.seen.length - before, 2, 'the two links of "second"');
    const seen = target.seen.length;
    const bad = await run(['second', 'nope']);
    assert.equal(bad.code, 2);
    assert.match(bad.err[0]!, /^catalog:check: UNKNOWN_SERVICE: /);
    assert.equal(target.seen.length, seen);
  });

  test('bad options are USAGE; a data directory held by a running service is DATA_DIR_LOCKED', async () => {
    for (const args of [['--concurrency', '0'], ['--concurrency'], ['--fast']]) {
      const r = await run(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.err[0]!, /^catalog:check: USAGE: /);
    }
    const held = await mkdtemp(join(tmpdir(), 'optout-held-'));
    const unlock = await lockDataDir(held);
    try {
      const seen = target.seen.length;
      const r = await run([], held);
      assert.equal(r.code, 2);
      assert.match(r.err[0]!, /^catalog:check: DATA_DIR_LOCKED: /);
      assert.equal(target.seen.length, seen);
    } finally {
      await unlock();
      await rm(held, { recursive: true, force: true });
    }
  });
});

describe('the catalog commands as processes', () => {
  const script = (name: string) => resolve(import.meta.dirname, name);
  const node = (args: string[], env: Record<string, string>) =>
    spawnSync(process.execPath, args, {
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });

  test('catalog:check names an unknown service and exits 2 without touching storage', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'optout-cli-'));
    try {
      const r = node([script('check-cli.ts'), 'no-such-service'], { DATA_DIR: dir });
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /catalog:check: UNKNOWN_SERVICE: /);
      const report = node([script('report-cli.ts')], { DATA_DIR: dir });
      assert.equal(report.status, 0, report.stderr);
      assert.match(report.stdout, /links checked: unknown \(no database at /);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('catalog:validate reports a bad record by file and field and exits 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'optout-validate-'));
    try {
      const file = join(dir, 'broken.json');
      await writeFile(file, JSON.stringify({ schema_version: '1.1', slug: 'broken' }));
      const r = node([script('validate-cli.ts'), file], {});
      assert.equal(r.status, 1);
      assert.match(r.stdout, /broken\.json: name: /);
      assert.match(r.stdout, /1 files, 0 valid records, \d+ problems/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
