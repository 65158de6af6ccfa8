/**
 * nginx on loopback with the repository's own deploy/nginx.conf (docs/deploy.md), for the
 * deployment tests and bench/scale. Only ports and paths are replaced: the instances' addresses
 * in both upstream groups, the listen ports (loopback), and the certificate (the tests' CA,
 * tls-ca.ts). A minimal main configuration around it keeps every file nginx writes (pid, temp,
 * error log) in a temp dir. As root, nginx runs as `nobody` (setpriv), never as root.
 *
 *   const ngx = await startNginx([portA, portB]);  // ngx.origin: https://127.0.0.1:PORT
 *   await ngx.close();
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePorts, sleep } from './dovecot-process.ts';
import { certPath, keyPath } from './tls-ca.ts';

export const NGINX_CONF = resolve(import.meta.dirname, '../../deploy/nginx.conf');
const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
/** the instances' addresses as deploy/nginx.conf writes them */
const EXAMPLE_UPSTREAM = /^(\s*)server 127\.0\.0\.1:300\d( [^;]*);$/;

export interface Nginx {
  /** https://127.0.0.1:PORT */
  origin: string;
  port: number;
  /** the port of the plain-HTTP server (it redirects to https) */
  httpPort: number;
  dir: string;
  errorLog(): Promise<string>;
  close(): Promise<void>;
}

/** deploy/nginx.conf with its example ports and paths replaced; nothing else changes. */
export function templateConfig(
  upstreams: number[],
  ports: { http: number; https: number },
  tls = { certPath, keyPath },
) {
  const conf = readFileSync(NGINX_CONF, 'utf8');
  const groups = [...conf.matchAll(/^upstream \w+ \{[\s\S]*?^\}/gm)].map((m) => m[0]);
  if (groups.length !== 2) throw new Error('deploy/nginx.conf: expected two upstream groups');
  let out = conf;
  for (const group of groups) {
    const lines = group.split('\n');
    const first = lines.findIndex((l) => EXAMPLE_UPSTREAM.test(l));
    if (first < 0) throw new Error('deploy/nginx.conf: an upstream group without server lines');
    const [, indent, params] = lines[first]!.match(EXAMPLE_UPSTREAM)!;
    const kept = lines.filter((l) => !EXAMPLE_UPSTREAM.test(l));
    kept.splice(first, 0, ...upstreams.map((p) => `${indent}server 127.0.0.1:${p}${params};`));
    out = out.replace(group, kept.join('\n'));
  }
  const swap = (from: string, to: string) => {
    if (!out.includes(from)) throw new Error(`deploy/nginx.conf: no "${from}"`);
    out = out.replace(from, to);
  };
  swap('listen 80;', `listen 127.0.0.1:${ports.http};`);
  swap('listen 443 ssl http2;', `listen 127.0.0.1:${ports.https} ssl http2;`);
  swap('/etc/ssl/optout/fullchain.pem', tls.certPath);
  swap('/etc/ssl/optout/privkey.pem', tls.keyPath);
  return out;
}

function account(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

export async function startNginx(upstreams: number[], opts: { workers?: number } = {}): Promise<Nginx> {
  if (!NGINX) throw new Error('nginx is not installed (run scripts/ensure-test-deps.sh)');
  const dir = await mkdtemp(join(process.env.OPTOUT_TEST_TMPDIR ?? tmpdir(), 'optout-nginx-'));
  const [http, https] = (await freePorts(2)) as [number, number];
  const who = account();
  if (who && !SETPRIV) throw new Error('running as root needs setpriv (util-linux) to start nginx as nobody');
  // nginx, running as nobody, reads its certificate from here (the CA's own dir is private)
  const tls = { certPath: join(dir, 'server.pem'), keyPath: join(dir, 'server.key') };
  await copyFile(certPath, tls.certPath);
  await copyFile(keyPath, tls.keyPath);
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) await mkdir(join(dir, sub));
  await writeFile(join(dir, 'optout.conf'), templateConfig(upstreams, { http, https }, tls));
  await writeFile(
    join(dir, 'nginx.conf'),
    [
      'daemon off;',
      `worker_processes ${opts.workers ?? 1};`,
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log warn;`,
      'events { worker_connections 1024; }',
      'http {',
      '  access_log off;',
      ...['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (t) => `  ${t === 'body' ? 'client_body' : t}_temp_path ${dir}/${t};`,
      ),
      `  include ${dir}/optout.conf;`,
      '}',
      '',
    ].join('\n'),
  );
  if (who) {
    for (const f of [
      '',
      'body',
      'proxy',
      'fastcgi',
      'uwsgi',
      'scgi',
      'server.pem',
      'server.key',
      'optout.conf',
      'nginx.conf',
    ])
      await chown(join(dir, f), who.uid, who.gid);
    await chmod(tls.keyPath, 0o600);
  }
  const argv = [NGINX, '-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')];
  const drop = who ? ['--reuid', String(who.uid), '--regid', String(who.gid), '--clear-groups'] : [];
  const [cmd, ...args] = SETPRIV ? [SETPRIV, ...drop, '--pdeathsig', 'KILL', ...argv] : argv;
  const child: ChildProcess = spawn(cmd!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const errorLog = () => readFile(join(dir, 'error.log'), 'utf8').catch(() => '');
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGQUIT'); // graceful: workers finish what they serve
      const t = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(t);
    }
    await rm(dir, { recursive: true, force: true });
  };
  process.on('exit', () => child.kill('SIGKILL'));
  const until = Date.now() + 15_000;
  while (!(await accepts(https))) {
    if (child.exitCode !== null || Date.now() > until) {
      const log = `${stderr}\n${await errorLog()}`;
      await close();
      throw new Error(`nginx did not start: ${log}`);
    }
    await sleep(50);
  }
  return { origin: `https://127.0.0.1:${https}`, port: https, httpPort: http, dir, errorLog, close };
}

/** whether something accepts TCP connections on 127.0.0.1:port */
function accepts(port: number): Promise<boolean> {
  return new Promise((r) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      r(true);
    });
    s.once('error', () => r(false));
  });
}
