/**
 * The embedded data directory's lock is one the kernel releases with the process
 * (src/storage/lock.ts): the real service, SIGKILLed, starts again at once on the same
 * directory; an owner that died but was not yet reaped (a zombie, whose pid still "lives")
 * does not hold it; a live owner is named in the refusal.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import { DataDirLockedError, lockDataDir } from '../../src/storage/lock.ts';
import { runMain, startServer } from '../helpers/server-process.ts';

const LOCK_TS = resolve(import.meta.dirname, '../../src/storage/lock.ts');
const dirs: string[] = [];
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function dataDir() {
  const dir = await mkdtemp(join(tmpdir(), 'optout-lock-'));
  dirs.push(dir);
  return dir;
}

describe('the embedded data directory lock', () => {
  test('the service killed with SIGKILL starts again at once on the same directory', async () => {
    const dir = await dataDir();
    const first = await startServer({ DATA_DIR: dir }, 180_000);
    assert.equal(await first.stop('SIGKILL'), null);
    const second = await startServer({ DATA_DIR: dir }, 180_000);
    try {
      assert.equal((await fetch(`${second.url}/healthz`)).status, 200);
      // A live owner: a second start is refused, naming the owner's process.
      const third = runMain({ DATA_DIR: dir });
      assert.equal(await third.exited, 1);
      assert.match(third.stderr.join(''), new RegExp(`process ${second.child.pid}\\b`));
    } finally {
      assert.equal(await second.stop(), 0);
    }
  });

  test('an owner killed but not yet reaped holds nothing', async () => {
    const dir = await dataDir();
    // The holder's parent becomes `sleep` (exec), which never reaps it: killed, it stays a zombie.
    const code = `const { lockDataDir } = await import(process.argv[1]); await lockDataDir(process.argv[2]); console.log('locked'); setInterval(() => {}, 1000);`;
    const wrapper = spawn(
      'sh',
      [
        '-c',
        `"${process.execPath}" --input-type=module -e "$0" "$1" "$2" & echo $!; exec sleep 60`,
        code,
        LOCK_TS,
        dir,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const lines: string[] = [];
      const rl = createInterface({ input: wrapper.stdout! });
      await new Promise<void>((res, rej) => {
        rl.on('line', (l) => {
          lines.push(l);
          if (l === 'locked') res();
        });
        wrapper.on('exit', () => rej(new Error(`holder gone: ${lines.join('\n')}`)));
      });
      const holder = Number(lines[0]);
      await assert.rejects(lockDataDir(dir), DataDirLockedError);
      process.kill(holder, 'SIGKILL');
      // A zombie: the thread group has exited (its leader alone is left, unreaped) — yet its pid
      // still answers kill(pid, 0). The leader shows Z before the other threads are gone, so wait for both.
      const status = () => readFileSync(`/proc/${holder}/status`, 'utf8');
      const zombie = () => /^State:\s+Z/m.test(status()) && /^Threads:\s+1$/m.test(status());
      for (let i = 0; i < 250 && !zombie(); i++) await new Promise((r) => setTimeout(r, 20));
      assert.ok(zombie(), 'the holder is a zombie');
      process.kill(holder, 0);
      const unlock = await lockDataDir(dir);
      await unlock();
    } finally {
      wrapper.kill('SIGKILL');
    }
  });
});
