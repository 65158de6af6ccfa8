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
import { readFile } from 'node:fs/promises';
import { stripTypeScriptTypes } from 'node:module';
import { dirname, relative, resolve } from 'node:path';

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
    const js = stripTypeScriptTypes(source, { mode: 'strip' });
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
