import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, test } from 'node:test';
import { syncCatalog } from '../../src/catalog/sync.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { createRuntime } from '../../src/runtime.ts';
import { openPostgres } from '../../src/storage/db.ts';
import { migrate } from '../../src/storage/migrate.ts';
import { loopbackCatalog } from '../helpers/catalog.ts';
import { startHttpTarget } from '../helpers/http-target.ts';
import { allowLoopback } from '../helpers/loopback.ts';
import { createTestDatabase } from '../helpers/postgres.ts';

const FAST = { pollingIntervalSeconds: 0.5, heartbeatSeconds: 10, superviseIntervalSeconds: 1 };
const silent = createLogger('silent');

describe('link checks with several workers on PostgreSQL', () => {
  test('two workers run each queued job exactly once', async () => {
    const target = await startHttpTarget();
    const pg = await createTestDatabase();
    const slugs = Array.from({ length: 12 }, (_, i) => `svc-${i}`);
    const catalog = loopbackCatalog(slugs.map((slug) => ({ slug, url: `${target.origin}/${slug}/cancel` })));
    const config = loadConfig({
      DATABASE_URL: pg.url,
      OUTBOUND_ALLOW_HOSTS: allowLoopback(target.port),
      LINK_CHECK_SCHEDULE: 'off',
    });
    const dbA = await openPostgres(pg.url, 4);
    const dbB = await openPostgres(pg.url, 4);
    await migrate(dbA);
    await syncCatalog(dbA, catalog);
    const a = await createRuntime({ config, db: dbA, catalog, logger: silent }, { queueTiming: FAST });
    const b = await createRuntime({ config, db: dbB, catalog, logger: silent }, { queueTiming: FAST });
    await Promise.all([a.queue.open(), b.queue.open()]);
    try {
      for (const slug of slugs) await (slug.endsWith('1') ? b : a).queue.enqueue(slug);
      const until = Date.now() + 30_000;
      for (;;) {
        const { rows } = await dbA.query<{ n: number }>('select count(*)::int as n from link_checks');
        if (rows[0]!.n >= slugs.length) break;
        assert.ok(Date.now() < until, 'all checks finish');
        await new Promise((r) => setTimeout(r, 200));
      }
      await new Promise((r) => setTimeout(r, 1500));
      for (const slug of slugs) {
        assert.equal(target.seen.filter((s) => s.url === `/${slug}/cancel`).length, 1, slug);
      }
      const { rows } = await dbA.query<{ n: number }>('select count(*)::int as n from link_checks');
      assert.equal(rows[0]!.n, slugs.length);
    } finally {
      await a.close();
      await b.close();
      await dbA.close();
      await dbB.close();
      await pg.drop();
      await target.close();
    }
  });
});

function node(env: Record<string, string>) {
  const child = spawn(process.execPath, [resolve(import.meta.dirname, '../helpers/linkcheck-node.ts')], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l));
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  const waitLine = async (text: string, timeoutMs = 40_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const line = lines.find((l) => l.includes(text));
      if (line) return JSON.parse(line);
      if (Date.now() > until || child.exitCode !== null) throw new Error(`no "${text}" line; stderr: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { child, lines, exited, waitLine };
}

for (const engine of ['PostgreSQL', 'PGlite'] as const) {
  describe(`link checks survive a crash on ${engine}`, () => {
    test('kill -9 during a check, restart: the check completes once', async () => {
      const target = await startHttpTarget();
      const pg = engine === 'PostgreSQL' ? await createTestDatabase() : undefined;
      const dataDir = await mkdtemp(join(tmpdir(), 'optout-crash-'));
      const env = {
        ...(pg ? { DATABASE_URL: pg.url } : { DATA_DIR: dataDir }),
        TARGET_URL: `${target.origin}/crashy/cancel`,
        OUTBOUND_ALLOW_HOSTS: allowLoopback(target.port),
      };
      try {
        target.hold = true;
        const first = node({ ...env, ENQUEUE: '1' });
        await target.waitForRequests(1, 60_000);
        first.child.kill('SIGKILL');
        await first.exited;
        target.release();

        const second = node(env);
        const checked = await second.waitLine('"msg":"link checked"');
        assert.equal(checked.outcome, 'ok');
        await new Promise((r) => setTimeout(r, 1500));
        second.child.kill('SIGTERM');
        const stopped = await second.waitLine('"msg":"node stopped"');
        assert.equal(stopped.recorded, 1);
        assert.equal(await second.exited, 0);
        // one attempt died with the first process, the retry completed
        assert.equal(target.seen.length, 2);
      } finally {
        await pg?.drop();
        await rm(dataDir, { recursive: true, force: true });
        await target.close();
      }
    });
  });
}
