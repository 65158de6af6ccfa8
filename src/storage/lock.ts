/**
 * One process owns an embedded data directory. PGlite has no lock of its own and a second
 * process on the same directory corrupts it (electric-sql/pglite#1106), so the owner holds an
 * advisory lock on DATA_DIR/optout.lock for as long as it runs.
 *
 * Node has no flock(2); SQLite does the same job: an open `BEGIN EXCLUSIVE` transaction on a
 * database file is a POSIX advisory record lock (fcntl F_SETLK, sqlite.org/lockingv3.html),
 * and the kernel drops such locks when the process's descriptors close — at exit, however the
 * process ends (SIGKILL, a crash), before it is reaped. So a restart right after a crash
 * always finds the directory free, and no process id is ever trusted (a dead owner's id may be
 * a zombie's or another process's by then). SQLite's own in-process bookkeeping refuses a second
 * lock from the same process too.
 *
 * The owner's pid is written beside the lock (optout.pid) for the refusal message only.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

export const LOCK_FILE = 'optout.lock';
export const PID_FILE = 'optout.pid';

/** SQLite's result code for a lock held elsewhere (SQLITE_BUSY; sqlite.org/rescode.html). */
const SQLITE_BUSY = 5;

export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true });
  // timeout 0: never wait for the lock; someone holding it is an answer, not a delay.
  const lock = new DatabaseSync(join(dir, LOCK_FILE), { timeout: 0 });
  try {
    lock.exec('begin exclusive');
  } catch (err) {
    lock.close();
    if ((err as { errcode?: number }).errcode !== SQLITE_BUSY) throw err;
    const pid = (await readFile(join(dir, PID_FILE), 'utf8').catch(() => '')).trim();
    const who = /^\d+$/.test(pid) ? `process ${pid}` : 'another process';
    throw new DataDirLockedError(
      `data directory ${dir} is in use by ${who} (it holds ${join(dir, LOCK_FILE)}); stop it or set DATA_DIR to another directory`,
    );
  }
  await writeFile(join(dir, PID_FILE), `${process.pid}\n`);
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await rm(join(dir, PID_FILE), { force: true });
    lock.close(); // ends the transaction: the lock is free
  };
}
