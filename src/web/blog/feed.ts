/** The blog as an Atom 1.0 feed (RFC 4287), full content included. */
import type { Config } from '../../config.ts';
import { dayStamp } from '../format.ts';
import { escapeHtml as x } from '../html.ts';
import type { Blog } from './content.ts';

export function atomFeed(config: Config, blog: Blog): string {
  const base = config.baseUrl;
  const updated =
    blog.articles
      .map((a) => a.updated)
      .sort()
      .at(-1) ?? '1970-01-01';
  const entries = blog.articles.map((a) => {
    const url = `${base}/blog/${a.slug}/`;
    return `  <entry>
    <title>${x(a.title)}</title>
    <id>${x(url)}</id>
    <link rel="alternate" type="text/html" href="${x(url)}"/>
    <published>${dayStamp(a.published)}</published>
    <updated>${dayStamp(a.updated)}</updated>
    <author><name>${x(a.author)}</name></author>
${a.tags.map((t) => `    <category term="${x(t)}"/>\n`).join('')}    <summary>${x(a.description)}</summary>
    <content type="html" xml:base="${x(url)}">${x(a.html)}</content>
  </entry>`;
  });
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>optout blog</title>
  <subtitle>Guides to unsubscribing, stopping spam and cleaning up an inbox.</subtitle>
  <id>${x(`${base}/blog/`)}</id>
  <link rel="self" type="application/atom+xml" href="${x(`${base}/blog/feed.xml`)}"/>
  <link rel="alternate" type="text/html" href="${x(`${base}/blog/`)}"/>
  <updated>${dayStamp(updated)}</updated>
  <author><name>optout</name></author>
${entries.join('\n')}
</feed>
`;
}
