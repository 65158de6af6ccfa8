/**
 * The deployment files in deploy/ agree with the service they run (docs/deploy.md): the node
 * flags are package.json's, the systemd stop timeout covers a whole drain, nginx keeps a quiet
 * /ws open past the server's pings and routes it sticky, and the image carries every directory
 * the code reads at run time.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { STOP_GRACE_MS } from '../../src/channel/drain.ts';
import { DEFAULT_CHANNEL_SETTINGS } from '../../src/channel/ws-route.ts';
import { loadConfig } from '../../src/config.ts';

const root = join(import.meta.dirname, '../..');
const read = (f: string) => readFileSync(join(root, f), 'utf8');
const nodeFlags = (JSON.parse(read('package.json')) as { config: { nodeFlags: string } }).config.nodeFlags;

describe('deploy/ files', () => {
  test('the systemd unit and the image start node with package.json’s flags', () => {
    const unit = read('deploy/optout@.service');
    assert.match(unit, new RegExp(`^ExecStart=\\S+/node ${nodeFlags} src/main\\.ts$`, 'm'));
    const image = read('deploy/Containerfile');
    const cmd = JSON.parse(image.match(/^CMD (\[.*\])$/m)![1]!) as string[];
    assert.deepEqual(cmd, ['node', ...nodeFlags.split(' '), 'src/main.ts']);
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
