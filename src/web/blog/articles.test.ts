/**
 * Every published article against the build that serves it: what it says optout does is
 * served by a route, every fact from elsewhere is a link with the date it was read, and every
 * link to one of optout's own pages (and the section it points at) exists.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { capabilityProblems, citationProblems, citations, ownLinks } from './claims.ts';
import { BLOG_DIR, loadBlog } from './content.ts';

let t: TestApp;
let sources: { slug: string; body: string }[];

before(async () => {
  t = await startTestApp({
    env: { BASE_URL: 'https://optout.example', LOG_LEVEL: 'silent' },
    runtime: { worker: false },
  });
  const blog = await loadBlog();
  sources = await Promise.all(
    blog.articles.map(async (a) => ({ slug: a.slug, body: await readFile(join(BLOG_DIR, `${a.slug}.md`), 'utf8') })),
  );
});
after(() => t.close());

const served = (method: string, url: string) => t.app.hasRoute({ method: method as 'GET', url });

describe('articles say only what this build does', () => {
  test('every capability an article says optout has is served by a route, and none it lacks is claimed', () => {
    for (const { slug, body } of sources) assert.deepEqual(capabilityProblems(body, served), [], slug);
  });
});

describe('articles cite what they state', () => {
  test('every link to another site carries the date it was read, and each article cites at least three sources', () => {
    for (const { slug, body } of sources) {
      assert.deepEqual(citationProblems(body), [], slug);
      assert.ok(citations(body).length >= 3, `${slug}: ${citations(body).length} citations`);
    }
  });

  test('Google’s one-click requirement is dated 1 June 2024 wherever an article dates it', () => {
    const month = /\b(January|February|March|April|May|June|July|August|September|October|November|December) 2024\b/;
    for (const { slug, body } of sources) {
      // "its capture of 17 May 2024" dates the copy that was read, not the requirement
      const text = body.replace(/\s*\n\s*/g, ' ').replace(/capture of \d{1,2} \w+ \d{4}/g, '');
      for (const sentence of text.split(/(?<=[.!?])\s+/)) {
        if (/one-click/i.test(sentence) && month.test(sentence)) assert.match(sentence, /1 June 2024/, slug);
      }
    }
  });
});

describe('links to optout’s own pages', () => {
  test('every one resolves, and a #section exists on the page', async () => {
    for (const { slug, body } of sources) {
      for (const href of ownLinks(body)) {
        const [path, fragment] = href.split('#') as [string, string | undefined];
        let res = await t.app.inject({ method: 'GET', url: path });
        if (res.statusCode === 301) res = await t.app.inject({ method: 'GET', url: String(res.headers.location) });
        assert.equal(res.statusCode, 200, `${slug} → ${href}`);
        if (fragment) assert.ok(res.body.includes(`id="${fragment}"`), `${slug} → ${href}: no such section`);
      }
    }
  });
});
