import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import vm from 'node:vm';
import { SCRIPTS } from './assets.ts';
import { bundleClient, ClientBundleError } from './client-bundle.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'optout-bundle-'));
});
after(() => rm(dir, { recursive: true, force: true }));

async function files(map: Record<string, string>) {
  for (const [name, text] of Object.entries(map)) await writeFile(join(dir, name), text);
}

describe('client bundles', () => {
  test('every shipped entry becomes one script that parses, with no types, imports or exports', async () => {
    for (const entry of Object.values(SCRIPTS)) {
      const js = await bundleClient(entry);
      assert.doesNotThrow(() => new vm.Script(js, { filename: entry }), entry);
      assert.doesNotMatch(js, /^\s*(import|export)\b/m, entry);
      assert.doesNotMatch(js, /\binterface\s+\w+\s*\{/, entry);
    }
  });

  test('dependencies come first, once each, and types are stripped', async () => {
    await files({
      'a.ts':
        "import { b } from './b.ts';\nimport { c } from './c.ts';\nimport type { T } from './t.ts';\nconst x: T = b() + c();\n",
      'b.ts': "import { c } from './c.ts';\nexport function b(): number { return c(); }\n",
      'c.ts': 'export const c = (): number => 1;\n',
      't.ts': 'export type T = number;\n',
    });
    const js = await bundleClient(join(dir, 'a.ts'));
    assert.equal(js.match(/const c = /g)?.length, 1);
    assert.ok(js.indexOf('const c =') < js.indexOf('function b') && js.indexOf('function b') < js.indexOf('const x'));
    assert.doesNotMatch(js, /: number|: T\b/);
    assert.equal(vm.runInNewContext(`${js}; x`), 2);
  });

  test('forms outside the supported dialect are refused with the file named', async () => {
    await files({
      'd.ts': "import * as b from './b.ts';\n",
      'e.ts': 'const e = 1;\nexport default e;\n',
      'f.ts': "import { g } from './g.ts';\n",
      'g.ts': "import { f } from './f.ts';\nexport const g = 1;\n",
    });
    await assert.rejects(
      bundleClient(join(dir, 'd.ts')),
      (e: Error) => e instanceof ClientBundleError && /d\.ts/.test(e.message),
    );
    await assert.rejects(bundleClient(join(dir, 'e.ts')), /export/);
    await assert.rejects(bundleClient(join(dir, 'f.ts')), /cycle/);
  });
});
