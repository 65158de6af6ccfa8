/**
 * One process owns an embedded data directory. PGlite has no lock of its own and a
 * second process on the same directory corrupts it (electric-sql/pglite#1106), so we
 * keep a pid file, created exclusively, and refuse to start while its owner lives.
 */
import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'optout.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fh = await open(file, 'wx');
      await fh.writeFile(String(process.pid));
      await fh.close();
      return async () => {
        await unlink(file).catch(() => {});
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (pid && alive(pid)) {
        throw new DataDirLockedError(
          `data directory ${dir} is in use by process ${pid}; stop it or set DATA_DIR to another directory`,
        );
      }
      // The owner died without cleaning up: the lock is stale, take it over.
      await unlink(file).catch(() => {});
    }
  }
  throw new DataDirLockedError(`could not lock data directory ${dir}`);
}
