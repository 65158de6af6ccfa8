/**
 * The type-level check that browser and server agree on every /ws message: the browser code
 * (src/web/client/tool/) is compiled against the protocol's one definition by `npm run
 * typecheck` (tsc -p src/web/client). Here that check is shown to bite: a copy of src/ with the
 * server's side of one message changed must no longer compile, in the browser file that reads
 * or writes it; the unchanged copy compiles.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';

const ROOT = resolve(import.meta.dirname, '../..');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'optout-protocol-'));
});
after(() => rm(dir, { recursive: true, force: true }));

/** A copy of src/ with `edit` applied to one file; the browser project's compiler output. */
async function compileBrowserWith(name: string, file: string, edit: (text: string) => string) {
  const root = join(dir, name);
  await cp(join(ROOT, 'src'), join(root, 'src'), { recursive: true });
  for (const f of ['tsconfig.json', 'package.json']) await cp(join(ROOT, f), join(root, f));
  await symlink(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  const path = join(root, file);
  const before = await readFile(path, 'utf8');
  const after = edit(before);
  assert.notEqual(after, before, `the edit changed nothing in ${file}`);
  await writeFile(path, after);
  try {
    await promisify(execFile)(process.execPath, [TSC, '-p', join(root, 'src/web/client')], { cwd: root });
    return { ok: true, output: '' };
  } catch (err) {
    return { ok: false, output: String((err as { stdout?: string }).stdout) };
  }
}

describe('browser and server agree on the /ws messages, or the browser does not compile', () => {
  test('the unchanged protocol compiles with the browser code', async () => {
    const r = await compileBrowserWith('same', 'src/channel/protocol.ts', (t) => `${t}\n`);
    assert.equal(r.ok, true, r.output);
  });

  test('a field of a server message renamed: the browser code that reads it fails', async () => {
    const r = await compileBrowserWith('renamed', 'src/channel/server-messages.ts', (t) =>
      t.replace(/(DoneMessage = z\.strictObject\(\{\n {2}type: z\.literal\('done'\),\n {2})scanned:/, '$1messages:'),
    );
    assert.equal(r.ok, false);
    assert.match(r.output, /tool\/main\.ts\(\d+,\d+\): error TS2339: Property 'scanned' does not exist/);
  });

  test('a server message type the browser does not handle fails its handler table', async () => {
    const r = await compileBrowserWith('added', 'src/channel/server-messages.ts', (t) =>
      t.replace(
        "export const ServerMessage = z.discriminatedUnion('type', [",
        "export const ServerMessage = z.discriminatedUnion('type', [\n  z.strictObject({ type: z.literal('notice') }),",
      ),
    );
    assert.equal(r.ok, false);
    assert.match(r.output, /tool\/main\.ts\(\d+,\d+\): error TS2741: Property 'notice' is missing/);
  });

  test('a client message the server would refuse fails where the browser builds it', async () => {
    const r = await compileBrowserWith('client', 'src/channel/client-messages.ts', (t) =>
      t.replace('  dry_run: z.boolean().optional(),', "  dry_run: z.enum(['yes', 'no']).optional(),"),
    );
    assert.equal(r.ok, false);
    assert.match(r.output, /tool\/main\.ts\(\d+,\d+\): error TS2322: Type 'boolean' is not assignable/);
  });

  test('an error code added to the catalog without advice for the person fails', async () => {
    const r = await compileBrowserWith('code', 'src/channel/errors.ts', (t) =>
      t.replace(
        "  INTERNAL: { meaning: 'a bug on our side', connection: 'stays' },",
        "$&\n  NEW_CODE: { meaning: 'new', connection: 'stays' },",
      ),
    );
    assert.equal(r.ok, false);
    assert.match(r.output, /tool\/advice\.ts\(\d+,\d+\): error TS2741: Property 'NEW_CODE' is missing/);
  });
});
