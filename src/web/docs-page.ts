/**
 * /docs: a readable API reference rendered on the server from the same OpenAPI document
 * served at /.well-known/openapi.json, plus the error catalog. No scripts needed.
 */
import type { FastifyInstance } from 'fastify';
import { AGENT_ERRORS } from '../agent/errors.ts';
import { ERRORS } from '../http/errors.ts';
import { html, page, type SafeHtml } from './html.ts';

// The OpenAPI document is walked loosely: it is our own output, shaped by @fastify/swagger.
// biome-ignore lint/suspicious/noExplicitAny: see above
type Json = Record<string, any>;

function typeOf(s: Json | undefined): string {
  if (!s) return '';
  if (s.enum) return s.enum.map((v: unknown) => JSON.stringify(v)).join(' | ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.anyOf) return s.anyOf.map(typeOf).join(' | ');
  if (s.type === 'array') return `array of ${typeOf(s.items) || 'any'}`;
  return Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? 'object');
}

function fields(schema: Json | undefined): SafeHtml {
  const alternatives = (schema?.oneOf ?? schema?.anyOf) as Json[] | undefined;
  if (alternatives) {
    return html`${alternatives.map(
      (alt, i) => html`<p class="muted">${i ? 'or ' : ''}${alt.description ?? `shape ${i + 1}`}:</p>${fields(alt)}`,
    )}`;
  }
  const props = schema?.properties as Json | undefined;
  if (!props) return html``;
  const required = new Set<string>(schema?.required ?? []);
  return html`<table class="stack"><thead><tr><th>field</th><th>type</th><th>notes</th></tr></thead><tbody>${Object.entries(
    props,
  ).map(
    ([k, v]) =>
      html`<tr><td data-label="field"><code>${k}</code>${required.has(k) ? '' : html` <span class="muted">(optional)</span>`}</td><td data-label="type">${typeOf(v)}</td><td data-label="notes">${v.description ?? ''}</td></tr>`,
  )}</tbody></table>`;
}

function operation(path: string, method: string, op: Json): SafeHtml {
  const params = (op.parameters ?? []) as Json[];
  const body = op.requestBody?.content?.['application/json']?.schema as Json | undefined;
  const ok = Object.entries(op.responses ?? {}).find(([s]) => s.startsWith('2'));
  const data = (ok?.[1] as Json | undefined)?.content?.['application/json']?.schema?.properties?.data as
    | Json
    | undefined;
  return html`<section class="op" id="${method}-${path}"><h3><span class="method">${method}</span><code>${path}</code></h3>
<p>${op.summary ?? ''}</p>${op.description ? html`<p class="muted">${op.description}</p>` : ''}
${params.length ? html`<h4>Parameters</h4><table class="stack"><thead><tr><th>name</th><th>in</th><th>type</th><th>notes</th></tr></thead><tbody>${params.map((p) => html`<tr><td data-label="name"><code>${p.name}</code>${p.required ? '' : html` <span class="muted">(optional)</span>`}</td><td data-label="in">${p.in}</td><td data-label="type">${typeOf(p.schema)}</td><td data-label="notes">${p.description ?? p.schema?.description ?? ''}${p.schema?.default !== undefined ? ` (default ${p.schema.default})` : ''}</td></tr>`)}</tbody></table>` : ''}
${body ? html`<h4>Request body (application/json)</h4>${fields(body)}` : ''}
${data ? html`<h4>Response <code>data</code></h4>${fields(data)}` : ''}
<p class="muted">Statuses: ${Object.keys(op.responses ?? {}).join(', ')}</p></section>`;
}

export function docsPage(app: FastifyInstance) {
  app.get('/docs', { schema: { hide: true } }, async (_req, reply) => {
    const doc = app.swagger() as Json;
    const all = Object.entries(doc.paths ?? {}).flatMap(([path, methods]) =>
      Object.entries(methods as Json).map(([m, op]) => ({ path, m, op: op as Json })),
    );
    const isAgent = (o: { op: Json }) => (o.op.tags ?? []).includes('agent');
    const ops = all.filter((o) => !isAgent(o)).map((o) => operation(o.path, o.m, o.op));
    const agentOps = all.filter(isAgent).map((o) => operation(o.path, o.m, o.op));
    const body = html`<header class="page-head"><h1>optout API reference</h1><p>${doc.info?.description ?? ''}</p>
<p>Machine-readable: <a href="/.well-known/openapi.json">/.well-known/openapi.json</a> (OpenAPI ${doc.openapi}). Base URL: <code>${doc.servers?.[0]?.url ?? ''}</code></p></header>
<h2>Envelope</h2><p>Every response of the public API is <code>{"code": "0", "data": {…}, "message": ""}</code> on success and <code>{"code": "NOT_FOUND", "message": "…"}</code> on failure.</p>
<h2>Error codes</h2><table class="stack"><thead><tr><th>code</th><th>HTTP status</th></tr></thead><tbody>${Object.entries(ERRORS).map(([c, s]) => html`<tr><td data-label="code"><code>${c}</code></td><td data-label="HTTP status">${s}</td></tr>`)}</tbody></table>
<h2>Operations</h2>${ops}
<h2 id="agent">Agent registration</h2><p>Agents register, claim and revoke credentials under <code>/agent/auth</code> (served at <code>${all.find(isAgent)?.op.servers?.[0]?.url ?? ''}</code>); start at <a href="/auth.md">/auth.md</a>. These endpoints answer <code>{"error": "…", "message": "…"}</code> instead of the envelope, with these codes:</p>
<table class="stack"><thead><tr><th>error</th><th>HTTP status</th></tr></thead><tbody>${Object.entries(AGENT_ERRORS).map(([c, s]) => html`<tr><td data-label="error"><code>${c}</code></td><td data-label="HTTP status">${s}</td></tr>`)}</tbody></table>
${agentOps}`;
    reply.type('text/html; charset=utf-8').header('cache-control', 'public, max-age=300');
    return page(
      'optout API reference',
      'Reference of the optout public API.',
      html`<div class="docs">${body}</div>`,
      'docs',
    );
  });
}
