/**
 * /assets/: the stylesheet and the two browser scripts, prepared once at start and held
 * in memory with a gzip copy and a content hash. Pages link `/assets/<name>?v=<hash>`,
 * which may be cached for a year (a change makes a new URL); the bare name is cached
 * briefly and revalidated by ETag.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { bundleClient } from './client-bundle.ts';

export interface Asset {
  body: Buffer;
  readonly gzip: Buffer;
  type: string;
  hash: string;
}

const ASSET_DIR = join(import.meta.dirname, 'assets');
/** Stylesheets in cascade order; served together as site.css. */
const CSS_FILES = ['base.css', 'layout.css', 'components.css', 'tool.css', 'service.css', 'prose.css', 'trust.css'];
/** Browser entries under src/web/client/, served as one module each. */
export const SCRIPTS: Record<string, string> = { 'tool.js': 'tool/main.ts', 'service.js': 'service/main.ts' };

// The set of assets is the same for every app in a process, so it is kept once per process:
// page templates ask for URLs without threading the map through every renderer.
const loaded = new Map<string, Asset>();
let loading: Promise<Map<string, Asset>> | undefined;

function asset(text: string, type: string): Asset {
  const body = Buffer.from(text);
  // compressed when first asked for: gzip at level 9 of the stylesheet and both scripts was
  // ~20 ms of every start (docs/benchmarks.md, "First start")
  let gzip: Buffer | undefined;
  return {
    body,
    get gzip() {
      gzip ??= gzipSync(body, { level: 9 });
      return gzip;
    },
    type,
    hash: createHash('sha256').update(body).digest('hex').slice(0, 12),
  };
}

export function loadAssets(): Promise<Map<string, Asset>> {
  loading ??= (async () => {
    const css = await Promise.all(CSS_FILES.map((f) => readFile(join(ASSET_DIR, f), 'utf8')));
    loaded.set('site.css', asset(css.join('\n'), 'text/css; charset=utf-8'));
    loaded.set('favicon.svg', asset(await readFile(join(ASSET_DIR, 'favicon.svg'), 'utf8'), 'image/svg+xml'));
    for (const [name, entry] of Object.entries(SCRIPTS)) {
      loaded.set(name, asset(await bundleClient(entry), 'text/javascript; charset=utf-8'));
    }
    return loaded;
  })();
  return loading;
}

/** The cache-busting URL of an asset (the plain path before assets are loaded). */
export function assetUrl(name: string): string {
  const a = loaded.get(name);
  return a ? `/assets/${name}?v=${a.hash}` : `/assets/${name}`;
}

export async function assetRoutes(app: FastifyInstance) {
  const assets = await loadAssets();
  // Browsers ask for /favicon.ico on documents without an icon link (robots.txt, the feed).
  app.get('/favicon.ico', { schema: { hide: true } }, (_req, reply) => reply.redirect(assetUrl('favicon.svg'), 301));
  app.get<{ Params: { name: string }; Querystring: { v?: string } }>(
    '/assets/:name',
    { schema: { hide: true } },
    async (req, reply) => {
      const a = assets.get(req.params.name);
      if (!a) return reply.callNotFound();
      const etag = `"${a.hash}"`;
      reply
        .type(a.type)
        .header('etag', etag)
        .header('vary', 'accept-encoding')
        .header(
          'cache-control',
          req.query.v === a.hash ? 'public, max-age=31536000, immutable' : 'public, max-age=300, must-revalidate',
        );
      if (req.headers['if-none-match'] === etag) return reply.code(304).send();
      if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
        return reply.header('content-encoding', 'gzip').send(a.gzip);
      }
      return reply.send(a.body);
    },
  );
}
