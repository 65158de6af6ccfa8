/**
 * The deployment files in deploy/ agree with the service they run (docs/deploy.md): both start
 * it through deploy/start.sh, which runs node itself with package.json's flags, the systemd stop timeout covers a whole drain, nginx keeps a quiet
 * /ws open past the server's pings and routes it sticky, and the image carries every directory
 * the code reads at run time.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, test } from 'node:test';
import { STOP_GRACE_MS } from '../../src/channel/drain.ts';
import { DEFAULT_CHANNEL_SETTINGS } from '../../src/channel/ws-route.ts';
import { loadConfig } from '../../src/config.ts';

const root = join(import.meta.dirname, '../..');
const read = (f: string) => readFileSync(join(root, f), 'utf8');
const nodeFlags = (JSON.parse(read('package.json')) as { config: { nodeFlags: string } }).config.nodeFlags;

describe('deploy/ files', () => {
  test('the systemd unit and the image start the service through deploy/start.sh', () => {
    assert.match(read('deploy/optout@.service'), /^ExecStart=\/bin\/sh \/opt\/optout\/deploy\/start\.sh$/m);
    const image = read('deploy/Containerfile');
    assert.deepEqual(JSON.parse(image.match(/^CMD (\[.*\])$/m)![1]!), ['sh', 'deploy/start.sh']);
    assert.match(image, /^COPY deploy\/start\.sh \.\/deploy\/start\.sh$/m);
  });

  test('deploy/start.sh runs node itself with package.json’s flags, and SIGTERM drains it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'optout-start-'));
    const child = spawn('sh', [join(root, 'deploy/start.sh')], {
      env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dir, DRAIN_SECONDS: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const lines = createInterface({ input: child.stdout! });
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      await new Promise<void>((res, rej) => {
        lines.on('line', (l) => l.includes('optout is listening') && res());
        void exited.then((code) => rej(new Error(`exited with ${code}`)));
      });
      // the same process (exec): node, with the flags npm start would give it
      const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      assert.match(argv[0]!, /node$/);
      assert.deepEqual(argv.slice(1), [...nodeFlags.split(' '), 'src/main.js']);
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    } finally {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('the systemd stop timeout outlasts a whole drain with its defaults', () => {
    const unit = read('deploy/optout@.service');
    const stopSeconds = Number(unit.match(/^TimeoutStopSec=(\d+)$/m)![1]);
    const closeMs = 10_000;
    assert.ok(stopSeconds * 1000 > loadConfig({}).drainMs + STOP_GRACE_MS + closeMs);
  });

  test('nginx keeps a quiet /ws open past two server pings and routes /ws and the sign-in sticky', () => {
    const conf = read('deploy/nginx.conf');
    const ws = conf.match(/location = \/ws \{([\s\S]*?)\n {4}\}/)![1]!;
    const readTimeout = Number(ws.match(/proxy_read_timeout (\d+)s;/)![1]);
    assert.ok(readTimeout * 1000 > 2 * DEFAULT_CHANNEL_SETTINGS.pingMs);
    assert.match(ws, /proxy_pass http:\/\/optout_sticky;/);
    assert.match(conf, /location \/auth\/microsoft\/ \{\s*proxy_pass http:\/\/optout_sticky;/);
    assert.match(conf, /upstream optout_sticky \{\s*hash \$remote_addr consistent;/);
  });

  test('the image carries every directory the code reads at run time', () => {
    const image = read('deploy/Containerfile');
    for (const dir of ['src', 'catalog', 'content']) assert.match(image, new RegExp(`^COPY ${dir} \\./${dir}$`, 'm'));
  });
});
