/**
 * The start as `npm start` runs it: the server answers as soon as it listens; then the start's
 * leftover memory is given back and the link-check queue opens (src/main.ts, AFTER_START_MS).
 * A check asked for before the queue is open waits for it (src/linkcheck/deferred.test.ts).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type ServerProcess, startServer } from '../helpers/server-process.ts';

let dir: string;
let server: ServerProcess | undefined;
after(async () => {
  await server?.stop('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

const line = (s: ServerProcess, msg: string) => s.stdout.map((l) => JSON.parse(l)).find((l) => l.msg === msg);
const until = async <T>(get: () => T | undefined, ms = 20_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

test('the server answers at once; then memory is settled and the link-check queue opens', async () => {
  dir = await mkdtemp(join(tmpdir(), 'optout-start-'));
  server = await startServer({ DATA_DIR: join(dir, 'data') }, 60_000, { asNpmStart: true });
  const s = server;
  const lookup = await fetch(`${s.url}/api/v1/services/netflix`);
  assert.equal(lookup.status, 200);
  assert.equal(line(s, 'link-check queue open'), undefined, 'the lookup was answered before the queue opened');

  const settled = await until(() => line(s, 'memory settled after start'));
  const opened = await until(() => line(s, 'link-check queue open'));
  assert.ok(settled.rss_after_mib < settled.rss_before_mib, JSON.stringify(settled));
  assert.ok(settled.time <= opened.time, 'settled first, then the queue opened');
  const check = await fetch(`${s.url}/api/v1/link-check`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ slug: 'netflix' }),
  });
  assert.equal(check.status, 202);
  assert.deepEqual(((await check.json()) as { data: unknown }).data, { queued: true });
  assert.equal(await s.stop('SIGTERM'), 0);
});
