/**
 * Two real service processes started at the same moment on one fresh PostgreSQL database, as a
 * deployment's instances are (docs/deploy.md, "What instances share"): both come up (the
 * migrations, the job queue's schema and the server secrets are made once), the per-IP guide
 * limit counts across both, and a guide one instance had a model write is served by the other
 * from the shared cache without asking the model again. The other shared state has its own
 * two-instance tests: agent keys, claims, codes and revocation events (src/agent/instances.test.ts),
 * scan quotas (src/quota/scan-quota.test.ts), link-check jobs (linkcheck-workers.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { type LlmStub, startLlmStub } from '../helpers/llm-stub.ts';
import { createTestDatabase } from '../helpers/postgres.ts';
import { type ServerProcess, startServer } from '../helpers/server-process.ts';

describe('two instances on one PostgreSQL', () => {
  let db: { url: string; drop: () => Promise<void> };
  let stub: LlmStub;
  let a: ServerProcess;
  let b: ServerProcess;

  before(async () => {
    db = await createTestDatabase();
    stub = await startLlmStub();
    const env = {
      DATABASE_URL: db.url,
      LLM_PROVIDER: 'openai',
      LLM_BASE_URL: stub.url,
      LLM_API_KEY: 'sk-test-instances',
      LLM_MODEL: 'stub-1',
    };
    // the same moment, on a database with no tables yet
    [a, b] = await Promise.all([startServer(env, 180_000), startServer(env, 180_000)]);
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await stub?.close();
    await db?.drop();
  });

  test('both start together on an empty database; each migration is applied once', async () => {
    for (const s of [a, b]) assert.equal((await fetch(`${s.url}/readyz`)).status, 200);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const { rows } = await c.query('select name, count(*)::int as n from schema_migrations group by name');
      assert.ok(rows.length > 0);
      for (const r of rows) assert.equal(r.n, 1, r.name);
      const secrets = await c.query('select count(*)::int as n from app_secrets');
      assert.ok(secrets.rows[0].n >= 1);
    } finally {
      await c.end();
    }
  });

  const guide = (s: ServerProcess, slug: string) =>
    fetch(`${s.url}/api/v1/guide`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ slug, options: { tone: 'terse', locale: 'en' } }),
    });

  test('a guide written through one instance is served by the other from the cache', async () => {
    const first = await guide(a, 'netflix');
    assert.equal(first.status, 200);
    const asked = stub.requests.length;
    assert.ok(asked >= 1);
    const second = await guide(b, 'netflix');
    assert.equal(second.status, 200);
    const body = async (r: Response) => ((await r.json()) as { data: unknown }).data;
    assert.deepEqual(await body(second), await body(first));
    assert.equal(stub.requests.length, asked, 'the model was not asked again');
  });

  test('the guide limit (20 per minute per client) counts across both instances', async () => {
    // two requests already counted by the test before; 25 more alternate between the instances
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await guide(i % 2 ? a : b, 'netflix')).status);
    assert.equal(statuses.filter((s) => s === 200).length, 18);
    assert.equal(statuses.filter((s) => s === 429).length, 7);
  });
});
