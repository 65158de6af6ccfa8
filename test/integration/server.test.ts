import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createTestDatabase } from '../helpers/postgres.ts';
import { runMain, startServer } from '../helpers/server-process.ts';

const dirs: string[] = [];
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'optout-srv-'));
  dirs.push(d);
  return d;
};
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('the service as a process, on the embedded database', () => {
  test('serves the catalog, refuses a second owner of its data dir, and stops cleanly on SIGTERM', async () => {
    const dataDir = await tempDir();
    const server = await startServer({ DATA_DIR: dataDir });
    try {
      const found = (await (await fetch(`${server.url}/api/v1/services?q=netflix`)).json()) as {
        code: string;
        data: { items: { slug: string }[] };
      };
      assert.equal(found.code, '0');
      assert.equal(found.data.items[0]?.slug, 'netflix');
      const missing = await fetch(`${server.url}/api/v1/services/nope`);
      assert.equal(missing.status, 404);
      assert.notEqual(((await missing.json()) as { code: string }).code, '0');

      const second = runMain({ DATA_DIR: dataDir });
      assert.notEqual(await second.exited, 0);
      assert.match(second.stderr.join(''), /in use by process \d+/);
    } finally {
      assert.equal(await server.stop('SIGTERM'), 0);
    }
    assert.ok(server.stdout.some((l) => l.includes('"msg":"stopped"')));
    assert.equal(existsSync(join(dataDir, 'optout.pid')), false);

    // The directory was closed cleanly: a new process opens it and serves again.
    const again = await startServer({ DATA_DIR: dataDir });
    const res = await fetch(`${again.url}/api/v1/categories`);
    assert.equal(res.status, 200);
    assert.equal(await again.stop('SIGINT'), 0);
  });

  test('an invalid configuration stops the start with the variable named', async () => {
    const run = runMain({ PORT: 'eighty', DATA_DIR: await tempDir() });
    assert.equal(await run.exited, 2);
    assert.match(run.stderr.join(''), /PORT/);
  });
});

describe('the service as a process, on PostgreSQL', () => {
  test('DATABASE_URL switches storage to PostgreSQL', async () => {
    const pg = await createTestDatabase();
    const dataDir = await tempDir();
    const server = await startServer({ DATABASE_URL: pg.url, DATA_DIR: dataDir });
    try {
      const listening = JSON.parse(server.stdout.find((l) => l.includes('optout is listening'))!);
      assert.equal(listening.storage, 'postgres');
      const body = (await (await fetch(`${server.url}/api/v1/services/netflix`)).json()) as {
        data: { service: string };
      };
      assert.equal(body.data.service, 'Netflix');
      assert.equal(existsSync(join(dataDir, 'db')), false);
    } finally {
      assert.equal(await server.stop(), 0);
      await pg.drop();
    }
  });
});
