import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { createFromImage, untar } from './image.ts';

const root = await mkdtemp(join(tmpdir(), 'optout-untar-'));
after(() => rm(root, { recursive: true, force: true }));

/** One ustar entry (header + padded body). */
function entry(name: string, body: string, type = '0'): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100);
  h.write('0000600\0', 100);
  h.write(`${Buffer.byteLength(body).toString(8).padStart(11, '0')}\0`, 124);
  h.write(type, 156);
  h.write('ustar\0', 257);
  const data = Buffer.alloc(Math.ceil(Buffer.byteLength(body) / 512) * 512);
  data.write(body);
  return Buffer.concat([h, data]);
}
const archive = (...entries: Buffer[]) => Buffer.concat([...entries, Buffer.alloc(1024)]);

test('an entry that climbs out of the target directory is refused and writes nothing outside', async () => {
  const dir = join(root, 'climb');
  await assert.rejects(untar(archive(entry('../escaped', 'x')), dir), { code: 'IMAGE_BAD_ENTRY' });
  assert.ok(!existsSync(join(root, 'escaped')));
});

test('links and other entry types are refused', async () => {
  for (const type of ['1', '2', 'x']) {
    await assert.rejects(untar(archive(entry('link', '', type)), join(root, `t${type}`)), {
      code: 'IMAGE_UNSUPPORTED_ENTRY',
    });
  }
});

test('an archive that is not a cluster is never renamed into place', async () => {
  const dir = join(root, 'notdb', 'db');
  const notACluster = gzipSync(archive(entry('readme', 'hello')));
  await assert.rejects(createFromImage(dir, notACluster), { code: 'IMAGE_NOT_A_CLUSTER' });
  assert.ok(!existsSync(dir));
  assert.deepEqual(await readdir(join(root, 'notdb')), ['db.partial']);
});

test('bytes that are not gzip are refused', async () => {
  await assert.rejects(createFromImage(join(root, 'garbage', 'db'), Buffer.from('not an image')), {
    code: 'Z_DATA_ERROR',
  });
  assert.ok(!existsSync(join(root, 'garbage', 'db')));
});
