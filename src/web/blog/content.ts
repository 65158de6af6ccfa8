/**
 * The blog's articles: content/blog/<slug>.md with YAML front matter, read and checked at
 * start, each rendered once when first served (markdown-it with raw HTML off, so an article cannot inject markup).
 * A malformed article stops the start with the file named, like a bad catalog record.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import MarkdownIt from 'markdown-it';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

export const BLOG_DIR = resolve(import.meta.dirname, '../../../content/blog');

const IsoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date YYYY-MM-DD');
const FrontMatter = z.object({
  title: z.string().min(3).max(200),
  description: z.string().min(10).max(300),
  slug: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/),
  published: IsoDate,
  updated: IsoDate,
  author: z.string().min(1),
  tags: z.array(z.string()).default([]),
});

export interface Article extends z.infer<typeof FrontMatter> {
  /** rendered body */
  html: string;
  /** words in the body, for the reading-time line */
  words: number;
}

export interface Blog {
  /** newest first (published, then title) */
  articles: Article[];
  bySlug: Map<string, Article>;
}

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
// Headings get ids so a section can be linked to; the text is already escaped by markdown-it.
md.core.ruler.push('heading_ids', (state) => {
  const used = new Set<string>();
  state.tokens.forEach((tok, i) => {
    if (tok.type !== 'heading_open') return;
    const text = state.tokens[i + 1]?.content ?? '';
    let id = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-|-$/g, '');
    while (used.has(id)) id += '-';
    used.add(id);
    tok.attrSet('id', id);
  });
});

// Tables stack on a phone (components.css, table.stack): each cell carries its column's name,
// so a row reads "Cost: free" without sideways scrolling.
md.core.ruler.push('stacked_tables', (state) => {
  let headers: string[] = [];
  let col = 0;
  state.tokens.forEach((tok, i) => {
    if (tok.type === 'table_open') {
      tok.attrJoin('class', 'stack');
      headers = [];
    } else if (tok.type === 'th_open') headers.push(state.tokens[i + 1]?.content ?? '');
    else if (tok.type === 'tr_open') col = 0;
    else if (tok.type === 'td_open') {
      const label = headers[col++];
      if (label) tok.attrSet('data-label', label);
    }
  });
});

export function parseArticle(file: string, source: string): Article {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/.exec(source);
  if (!m) throw new Error(`${file}: no YAML front matter between --- lines`);
  const parsed = FrontMatter.safeParse(parseYaml(m[1]!));
  if (!parsed.success) {
    throw new Error(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const body = m[2]!;
  // Rendered when a page or the feed first asks: ~30 ms of every start otherwise, for articles
  // that a process may never serve (docs/benchmarks.md, "First start"). markdown-it with raw HTML
  // off renders any text; the front matter above is what can be malformed, and is checked now.
  let html: string | undefined;
  return {
    ...parsed.data,
    get html() {
      html ??= md.render(body);
      return html;
    },
    words: body.split(/\s+/).filter(Boolean).length,
  };
}

export async function loadBlog(dir = BLOG_DIR): Promise<Blog> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.md') && f !== 'README.md').sort();
  const articles: Article[] = [];
  for (const f of files) {
    const a = parseArticle(`content/blog/${f}`, await readFile(join(dir, f), 'utf8'));
    if (`${a.slug}.md` !== f) throw new Error(`content/blog/${f}: slug "${a.slug}" must match the file name`);
    articles.push(a);
  }
  // code-point order: ISO dates sort as text, and a collator would load ICU's collation data
  // (~3 MiB resident) for a tie between two titles
  const order = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  articles.sort((a, b) => order(b.published, a.published) || order(a.title, b.title));
  return { articles, bySlug: new Map(articles.map((a) => [a.slug, a])) };
}
