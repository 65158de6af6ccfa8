import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { createTestDatabase } from '../../../test/helpers/postgres.ts';
import { childrenNamed, parseXml } from '../../../test/helpers/xml.ts';
import type { Db } from '../../storage/index.ts';
import { trustFacts } from './facts.ts';
import { EXPIRES_DAYS, securityTxt } from './security-txt.ts';
import { STORED_TABLES } from './stored-data.ts';

const BASE = 'https://optout.example';

/** Every table a migrated, running optout has: public ones by name, other schemas as `schema.*`. */
async function realTables(db: Db): Promise<string[]> {
  const { rows } = await db.query<{ schema: string; name: string }>(
    `select table_schema as schema, table_name as name from information_schema.tables
      where table_schema not in ('pg_catalog', 'information_schema') and table_type = 'BASE TABLE'`,
  );
  return [...new Set(rows.map((r) => (r.schema === 'public' ? r.name : `${r.schema}.*`)))].sort();
}

const listed = () => STORED_TABLES.map((t) => t.name).sort();

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: { BASE_URL: BASE, LOG_LEVEL: 'silent' }, runtime: { worker: false } });
});
after(() => t.close());
const get = (url: string) => t.app.inject({ method: 'GET', url });

describe('what /privacy says is stored', () => {
  test('names exactly the tables of the embedded database', async () => {
    assert.deepEqual(await realTables(t.db), listed());
  });

  test('names exactly the tables of a PostgreSQL database', async () => {
    const pg = await createTestDatabase();
    const app = await startTestApp({ env: { LOG_LEVEL: 'silent' }, databaseUrl: pg.url, runtime: { worker: false } });
    try {
      assert.deepEqual(await realTables(app.db), listed());
    } finally {
      await app.close();
      await pg.drop();
    }
  });

  test('the page shows every listed table with what it holds, how long it is kept, and what is never stored', async () => {
    const res = await get('/privacy');
    assert.equal(res.statusCode, 200);
    for (const table of STORED_TABLES) {
      const row = new RegExp(`<tr data-table="${table.name.replace('.', '\\.').replace('*', '\\*')}">(.*?)</tr>`).exec(
        res.body,
      );
      assert.ok(row, table.name);
      assert.ok(row[1]!.includes(table.kept.replaceAll('’', '’')), `${table.name}: retention shown`);
    }
    assert.match(res.body, /<h3 id="never">What is never stored<\/h3>/);
    for (const never of ['password', 'Microsoft sign-in tokens', 'your mail', 'email address in readable form'])
      assert.ok(res.body.includes(never), never);
  });

  test('the page names the header fields a scan really reads', async () => {
    const { body } = await get('/privacy');
    for (const f of trustFacts(t.config).headerFields) assert.match(body, new RegExp(`<code>${f}</code>`, 'i'));
  });

  test('what depends on the configuration follows it: Microsoft sign-in, the language model, outgoing mail', async () => {
    const plain = (await get('/privacy')).body;
    assert.match(plain, /has not set up Microsoft sign-in/);
    assert.match(plain, /no language model is used here/);
    assert.match(plain, /no outgoing mail server configured/);
    const other = await startTestApp({
      env: {
        BASE_URL: BASE,
        LOG_LEVEL: 'silent',
        OAUTH_CLIENT_ID: 'client-id',
        LLM_PROVIDER: 'openai',
        LLM_API_KEY: 'k',
        LLM_BASE_URL: 'https://llm.example/v1',
        SMTP_URL: 'smtps://u:p@mail.example:465',
        OPERATOR_NAME: 'Example Org',
      },
      runtime: { worker: false },
    });
    try {
      const body = (await other.app.inject({ method: 'GET', url: '/privacy' })).body;
      assert.match(body, /offers Microsoft sign-in/);
      assert.match(body, /login\.microsoftonline\.com/);
      assert.match(body, /language model at llm\.example/);
      assert.match(body, /through the operator’s mail server/);
      assert.match((await other.app.inject({ method: 'GET', url: '/about' })).body, /is run by Example Org\./);
    } finally {
      await other.close();
    }
  });
});

describe('/.well-known/security.txt (RFC 9116)', () => {
  test('has the required Contact and Expires, the Canonical URL and the policy page, as text/plain', async () => {
    const res = await get('/.well-known/security.txt');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; charset=utf-8/);
    const fields = Object.fromEntries(
      res.body
        .trim()
        .split('\n')
        .map((l) => l.split(/: (.*)/s).slice(0, 2) as [string, string]),
    );
    assert.equal(fields.Contact, 'mailto:security@optout.example');
    assert.equal(fields.Canonical, `${BASE}/.well-known/security.txt`);
    assert.equal(fields.Policy, `${BASE}/security`);
    const expires = Date.parse(fields.Expires!);
    assert.ok(expires > Date.now() && expires < Date.now() + 365 * 86_400_000, fields.Expires);
    assert.match(fields.Expires!, /^\d{4}-\d{2}-\d{2}T00:00:00Z$/);
  });

  test('Expires is always the same number of days after the request, never a year or more', () => {
    const f = trustFacts(t.config);
    assert.match(securityTxt(f, new Date('2026-12-31T23:59:59Z')), /^Expires: 2027-06-29T00:00:00Z$/m);
    assert.ok(EXPIRES_DAYS < 365);
  });

  test('SECURITY_CONTACT is what /security and security.txt both give', async () => {
    const other = await startTestApp({
      env: { BASE_URL: BASE, LOG_LEVEL: 'silent', SECURITY_CONTACT: 'https://optout.example/report' },
      runtime: { worker: false },
    });
    try {
      const txt = (await other.app.inject({ method: 'GET', url: '/.well-known/security.txt' })).body;
      assert.match(txt, /^Contact: https:\/\/optout\.example\/report$/m);
      const page = (await other.app.inject({ method: 'GET', url: '/security' })).body;
      assert.match(page, /<a href="https:\/\/optout\.example\/report">https:\/\/optout\.example\/report<\/a>/);
    } finally {
      await other.close();
    }
  });
});

describe('the trust pages are linked from every page', () => {
  test('every page in the sitemap, /docs, /connect and the 404 page link /privacy, /security and /about in the footer, and those resolve', async () => {
    const locs = childrenNamed(parseXml((await get('/sitemap.xml')).body), 'url').map(
      (u) => childrenNamed(u, 'loc')[0]!.text,
    );
    const paths = [...locs.map((l) => l.slice(BASE.length)), '/docs', '/connect', '/no-such-page'];
    assert.ok(paths.includes('/privacy') && paths.includes('/security') && paths.includes('/about'));
    for (const path of paths) {
      const res = await get(path);
      const footer = /<footer class="site-footer">([\s\S]*?)<\/footer>/.exec(res.body)?.[1] ?? '';
      for (const href of ['/privacy', '/security', '/about'])
        assert.ok(footer.includes(`href="${href}"`), `${path} → ${href}`);
    }
    // and each of them resolves to its page
    for (const href of ['/privacy', '/security', '/about']) {
      const res = await get(href);
      assert.equal(res.statusCode, 200, href);
      assert.match(String(res.headers['content-type']), /^text\/html/);
    }
  });
});
