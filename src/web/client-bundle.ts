/**
 * Turns the browser code under src/web/client/ into one JavaScript file per entry, at
 * start and without a build step: Node strips the TypeScript types
 * (module.stripTypeScriptTypes, positions kept), and the modules an entry imports are
 * concatenated in dependency order with their import lines and `export` keywords removed.
 *
 * That only works for a deliberately small dialect, which is enforced here rather than
 * hoped for: named imports of relative `.ts` modules, `export` only in front of top-level
 * declarations, and top-level names unique across the modules of one entry (a clash would
 * be a SyntaxError in the browser; web tests parse every bundle to catch it).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import module, { stripTypeScriptTypes } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';

export const CLIENT_DIR = resolve(import.meta.dirname, 'client');

const IMPORT = /^import\s*\{[^}]*\}\s*from\s*'(\.{1,2}\/[^']+\.ts)';?[ \t]*$/gm;
const ANY_IMPORT = /^\s*import\b/m;
const EXPORT_DECL = /^export\s+(?=(?:async\s+)?function\b|const\b|let\b|class\b)/gm;
const ANY_EXPORT = /^\s*export\b/m;

export class ClientBundleError extends Error {
  override name = 'ClientBundleError';
}

export async function bundleClient(entry: string): Promise<string> {
  const done = new Set<string>();
  const parts: string[] = [];

  async function visit(file: string, trail: string[]) {
    if (done.has(file)) return;
    if (trail.includes(file)) throw new ClientBundleError(`import cycle: ${[...trail, file].join(' → ')}`);
    const name = relative(CLIENT_DIR, file);
    const source = await readFile(file, 'utf8');
    const js = await stripped(source);
    const deps: string[] = [];
    const body = js
      .replace(IMPORT, (_m, spec: string) => {
        deps.push(resolve(dirname(file), spec));
        return '';
      })
      .replace(EXPORT_DECL, '');
    if (ANY_IMPORT.test(body)) throw new ClientBundleError(`${name}: only \`import { … } from './x.ts'\` is supported`);
    if (ANY_EXPORT.test(body)) throw new ClientBundleError(`${name}: \`export\` only before a top-level declaration`);
    for (const d of deps) await visit(d, [...trail, file]);
    done.add(file);
    parts.push(
      `// ${name}\n${body
        .replace(/[ \t]+$/gm, '')
        .replace(/\n{3,}/g, '\n\n')
        .trim()}\n`,
    );
  }

  await visit(resolve(CLIENT_DIR, entry), []);
  return parts.join('\n');
}

/**
 * The source with its types stripped, kept beside Node's compile cache by a hash of the source
 * when that cache is on (main.js): Node's type stripper is a WebAssembly build of swc that stays
 * resident (~17 MiB) once loaded, and with the service's own modules coming from the compile
 * cache, these few files were the only reason to load it on a start after the first. Without
 * the cache, or when the directory cannot be written, the source is stripped each time.
 */
async function stripped(source: string): Promise<string> {
  const cacheDir = module.getCompileCacheDir?.();
  if (!cacheDir) return stripTypeScriptTypes(source, { mode: 'strip' });
  const file = join(cacheDir, 'optout-client', `${createHash('sha256').update(source).digest('hex')}.js`);
  try {
    return await readFile(file, 'utf8');
  } catch {}
  const js = stripTypeScriptTypes(source, { mode: 'strip' });
  try {
    await mkdir(dirname(file), { recursive: true });
    // written whole or not at all: another process may read it at the same time
    const part = `${file}.${process.pid}.part`;
    await writeFile(part, js);
    await rename(part, file);
  } catch {}
  return js;
}
