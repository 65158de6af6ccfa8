import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { childrenNamed, parseXml } from '../../../test/helpers/xml.ts';
import { loadBlog, parseArticle } from './content.ts';

const BASE = 'https://optout.example';
const SLUGS = [
  'how-to-unsubscribe-all-emails',
  'batch-unsubscribe-emails',
  'how-to-stop-spam-emails',
  'unsubscribe-tool-alternatives',
  'unsubscribe-gmail',
];

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: { BASE_URL: BASE, LOG_LEVEL: 'silent' }, runtime: { worker: false } });
});
after(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url });
const attr = (body: string, prop: string) => new RegExp(`<meta property="${prop}" content="([^"]*)">`).exec(body)?.[1];

describe('articles', () => {
  test('the five published slugs load, and the README is not one of them', async () => {
    const blog = await loadBlog();
    assert.deepEqual(blog.articles.map((a) => a.slug).sort(), [...SLUGS].sort());
  });

  test('front matter is required and checked', () => {
    assert.throws(() => parseArticle('x.md', 'no front matter'), /front matter/);
    assert.throws(() => parseArticle('x.md', '---\ntitle: Hi\n---\nbody'), /description/);
  });

  test('raw HTML in Markdown is escaped, not rendered', () => {
    const a = parseArticle(
      'x.md',
      '---\ntitle: "T t t"\ndescription: "A description long enough"\nslug: x\npublished: 2026-01-01\nupdated: 2026-01-02\nauthor: me\n---\n## Hello\n\n<script>alert(1)</script>\n',
    );
    assert.match(a.html, /<h2 id="hello">Hello<\/h2>/);
    assert.doesNotMatch(a.html, /<script>/);
    assert.match(a.html, /&lt;script&gt;/);
  });
});

describe('/blog/', () => {
  test('the index links every article, newest first, and the feed', async () => {
    const res = await get('/blog/');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    for (const s of SLUGS) assert.ok(res.body.includes(`href="/blog/${s}/"`), s);
    assert.match(res.body, /<link rel="alternate" type="application\/atom\+xml"[^>]+href="\/blog\/feed\.xml">/);
    assert.match(res.body, new RegExp(`<link rel="canonical" href="${BASE}/blog/">`));
  });

  test('each article has its title, description, canonical and Open Graph tags', async () => {
    const blog = await loadBlog();
    for (const a of blog.articles) {
      const res = await get(`/blog/${a.slug}/`);
      assert.equal(res.statusCode, 200, a.slug);
      const url = `${BASE}/blog/${a.slug}/`;
      assert.ok(res.body.includes(`<link rel="canonical" href="${url}">`), a.slug);
      assert.equal(attr(res.body, 'og:type'), 'article');
      assert.equal(attr(res.body, 'og:url'), url);
      assert.ok(attr(res.body, 'og:title')?.startsWith(a.title.replaceAll('"', '&quot;').replaceAll("'", '&#39;')));
      assert.ok(
        res.body.includes(
          `<meta name="description" content="${a.description.replaceAll('"', '&quot;').replaceAll("'", '&#39;')}">`,
        ),
      );
      assert.match(res.body, /<h1>[^<]+<\/h1>/);
      assert.match(res.body, /<div class="prose"><p>/);
      assert.doesNotMatch(res.body, /<script /, 'articles need no script');
    }
  });

  test('an address without the trailing slash redirects to the canonical one', async () => {
    const res = await get('/blog/unsubscribe-gmail');
    assert.equal(res.statusCode, 301);
    assert.equal(res.headers.location, '/blog/unsubscribe-gmail/');
    assert.equal((await get('/blog')).headers.location, '/blog/');
  });
});

describe('/blog/feed.xml', () => {
  test('is well-formed Atom with one complete entry per article', async () => {
    const res = await get('/blog/feed.xml');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/atom\+xml/);
    const feed = parseXml(res.body);
    assert.equal(feed.name, 'feed');
    assert.equal(feed.attrs.xmlns, 'http://www.w3.org/2005/Atom');
    for (const required of ['id', 'title', 'updated', 'author'])
      assert.equal(childrenNamed(feed, required).length, 1, required);
    assert.ok(
      childrenNamed(feed, 'link').some((l) => l.attrs.rel === 'self' && l.attrs.href === `${BASE}/blog/feed.xml`),
    );
    const entries = childrenNamed(feed, 'entry');
    assert.equal(entries.length, SLUGS.length);
    for (const e of entries) {
      const id = childrenNamed(e, 'id')[0]!.text;
      assert.match(id, new RegExp(`^${BASE}/blog/[a-z-]+/$`));
      assert.match(childrenNamed(e, 'updated')[0]!.text, /^\d{4}-\d{2}-\d{2}T00:00:00Z$/);
      assert.ok(childrenNamed(e, 'title')[0]!.text.length > 3);
      assert.equal(childrenNamed(e, 'link')[0]!.attrs.href, id);
      assert.equal(childrenNamed(e, 'content')[0]!.attrs.type, 'html');
      assert.match(childrenNamed(e, 'content')[0]!.text, /^&lt;p&gt;/);
    }
  });
});
