/**
 * The HTML 404 page for browser paths. API, channel and discovery paths keep the JSON
 * envelope (their clients parse it); everything else is a page a person may have typed.
 */
import { html, renderPage } from './html.ts';

const MACHINE_PREFIXES = ['/api', '/ws', '/.well-known', '/agent', '/mcp'];

/** true for paths a browser navigates to: not under the API, channel or discovery prefixes */
export function isPagePath(path: string): boolean {
  return !MACHINE_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
}

export function notFoundPage(path: string): string {
  return renderPage({
    title: 'Page not found · optout',
    description: 'There is no page at this address.',
    body: html`<section class="notice-page">
<h1>Page not found</h1>
<p>There is nothing at <code>${path}</code>. The address may be mistyped, or the page may have moved.</p>
<ul class="link-list">
<li><a href="/">Clean up your inbox</a>: find the newsletters and lists you no longer read</li>
<li><a href="/services">Find how to cancel a subscription</a>: step-by-step guides for hundreds of services</li>
<li><a href="/blog/">Read the blog</a></li>
</ul></section>`,
  });
}
