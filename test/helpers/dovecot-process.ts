/** Process plumbing for the private Dovecot of the tests (test/helpers/dovecot.ts): identities, signals, ports, readiness. */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { userInfo } from 'node:os';
import tls from 'node:tls';
import { caPem } from './tls-ca.ts';

/** How long a started Dovecot has to greet on both ports. */
const START_TIMEOUT_MS = 15_000;

export interface Running {
  child: ChildProcess;
  exited: Promise<void>;
}

export const live = new Map<string, { pid: () => number | undefined }>();
let exitHook = false;

export function installExitHook(): void {
  if (exitHook) return;
  exitHook = true;
  process.on('exit', () => {
    for (const [dir, inst] of live) {
      const pid = inst.pid();
      if (pid) signalGroup(pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is gone
  }
}

/** uid/gid that owns the mail and the user/login names Dovecot's services drop to. */
export function identities(): {
  uid: number;
  gid: number;
  internalUser: string;
  internalGroup: string;
  loginUser: string;
} {
  if (process.getuid?.() === 0) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g'), internalUser: 'dovecot', internalGroup: 'dovecot', loginUser: 'dovenull' };
  }
  // Not root: every service runs as us (Dovecot cannot switch users, and its sockets must be ours).
  const me = userInfo().username;
  const group = execFileSync('id', ['-gn'], { encoding: 'utf8' }).trim();
  return {
    uid: process.getuid?.() ?? 0,
    gid: process.getgid?.() ?? 0,
    internalUser: me,
    internalGroup: group,
    loginUser: me,
  };
}

/** Free TCP ports on loopback: bind port 0, note the port, release. Dovecot may still lose a race; launch() retries. */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const s = net.createServer();
          s.once('error', reject);
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/** Both listeners answer with the real greeting (not "Waiting for authentication…"). */
export async function waitReady(
  host: string,
  ports: number[],
  exited: Promise<void>,
  logs: () => Promise<string>,
): Promise<'ready' | 'exited' | 'fatal' | 'timeout'> {
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const until = Date.now() + START_TIMEOUT_MS;
  for (const [i, port] of ports.entries()) {
    while (true) {
      if (gone) return 'exited';
      if (Date.now() > until) return 'timeout';
      if (await greets(host, port, i === 1)) break;
      // A service that cannot start is retried by the master forever; do not wait for that.
      if (/\bFatal: /.test(await logs())) return 'fatal';
      await sleep(25);
    }
  }
  return gone ? 'exited' : 'ready';
}

export function greets(host: string, port: number, implicitTls: boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const socket: net.Socket = implicitTls
      ? tls.connect({ host, port, ca: caPem, servername: '' })
      : net.connect({ host, port });
    let buf = '';
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), 2000);
    socket.on('error', () => done(false));
    socket.on('close', () => done(false));
    socket.on('data', (d) => {
      buf += d;
      for (const line of buf.split('\r\n').slice(0, -1)) {
        if (/^\* OK /.test(line) && !/Waiting for authentication/i.test(line)) {
          socket.write('a LOGOUT\r\n');
          return done(true);
        }
      }
    });
  });
}

/** Any process of the group still running (zombies waiting for init do not count)? */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid pgrp …; comm may contain spaces, so split after the last ')'.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') return true;
    }
    return false;
  } catch {
    return true; // no /proc: trust kill(0)
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
