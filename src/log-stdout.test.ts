import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

// The service's stdout: lines leave in batches, at most FLUSH_MS after they were logged.
const CHILD = `
import { createLogger } from ${JSON.stringify(resolve(import.meta.dirname, 'log.ts'))};
const mode = process.argv[1];
// process.stdout over a pipe turns the descriptor non-blocking: a full pipe then answers EAGAIN
if (mode === 'nonblocking') void process.stdout;
const log = createLogger('info');
if (mode === 'rest') {
  log.info('at rest');
  setInterval(() => {}, 1000);
} else {
  // ~150 bytes a line: 5000 lines are several times what a pipe holds
  for (let i = 0; i < 5000; i++) log.info({ i, pad: 'x'.repeat(64) }, 'burst');
  process.exit(0);
}
`;
const child = (mode: string) =>
  spawn(process.execPath, ['--input-type=module', '-e', CHILD, mode], { stdio: ['ignore', 'pipe', 'pipe'] });

async function allLines(mode: string, readAfterMs = 0) {
  const c = child(mode);
  const stderr: string[] = [];
  c.stderr!.on('data', (d) => stderr.push(String(d)));
  if (readAfterMs) {
    c.stdout!.pause();
    await sleep(readAfterMs);
  }
  const lines: string[] = [];
  createInterface({ input: c.stdout! }).on('line', (l) => lines.push(l));
  const code = await new Promise((r) => c.on('close', r));
  return { code, lines, stderr: stderr.join('') };
}

describe('stdout', () => {
  test('a line logged at rest is written at once, without waiting for more', async () => {
    const c = child('rest');
    try {
      const first = await createInterface({ input: c.stdout! })[Symbol.asyncIterator]().next();
      assert.equal((JSON.parse(String(first.value)) as { msg: string }).msg, 'at rest');
    } finally {
      c.kill();
    }
  });

  test('lines logged right before process.exit are all written', async () => {
    const { code, lines } = await allLines('burst');
    assert.equal(code, 0);
    assert.equal(lines.length, 5000);
    assert.equal((JSON.parse(lines.at(-1)!) as { i: number }).i, 4999);
  });

  test('a full non-blocking pipe is waited for: every line arrives whole and in order', {
    timeout: 15_000,
  }, async () => {
    const { code, lines, stderr } = await allLines('nonblocking', 300);
    assert.equal(code, 0, stderr);
    assert.equal(lines.length, 5000);
    for (const [i, l] of lines.entries()) assert.equal((JSON.parse(l) as { i: number }).i, i);
  });

  test('a log nobody reads any more does not stop the process', async () => {
    const c = child('burst');
    c.stdout!.destroy();
    const code = await new Promise((r) => c.on('close', r));
    assert.equal(code, 0);
  });
});
