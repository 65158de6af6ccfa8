/**
 * A private PostgreSQL for tests (Debian's server packages, installed by
 * scripts/ensure-test-deps.sh): `initdb` into a temp dir, `postgres` on a free loopback port
 * with its unix socket in that dir, trust authentication for the one superuser. Nothing of the
 * machine's own PostgreSQL is used or needed.
 *
 *   const pg = await startPostgres();   // pg.url: postgres://postgres@127.0.0.1:PORT/postgres
 *   await pg.stop();  await pg.start(); // a fault test: the database gone for a while, then back
 *   await pg.close();                   // stop and remove the temp dir
 *
 * Durability is switched off (fsync, synchronous_commit, full_page_writes): a throwaway
 * cluster has nothing worth flushing, and it makes migrations and pg-boss several times faster.
 * As root the server runs as the `postgres` user (or `nobody`): PostgreSQL refuses to run as
 * root. If this process dies without its exit hook, the kernel kills the postmaster
 * (setpriv --pdeathsig) and the backends follow it; the temp dir stays behind.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, rmSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePorts, signalGroup, sleep } from './dovecot-process.ts';

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
const START_TIMEOUT_MS = 30_000;
export const SUPERUSER = 'postgres';

export interface PgServer {
  /** superuser URL of the `postgres` database over TCP */
  url: string;
  port: number;
  /** the temp dir: data/, the unix socket, postgres.log */
  dir: string;
  /** fast shutdown (SIGINT: open sessions are ended); resolves once the server has exited */
  stop(): Promise<void>;
  /** SIGKILL the postmaster, as a crash would; recovery runs at the next start() */
  kill(): Promise<void>;
  /** start again on the same port and data, after stop() or kill() */
  start(): Promise<void>;
  /** stop and remove the temp dir; idempotent */
  close(): Promise<void>;
  /** the server log so far */
  logs(): Promise<string>;
}

/** The newest server binaries Debian installed, e.g. /usr/lib/postgresql/15/bin. */
export function pgBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0)
    throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql (run scripts/ensure-test-deps.sh)');
  return join(root, versions[0]!, 'bin');
}

/** The account the server runs as: ours, or as root one PostgreSQL accepts. */
function serverAccount(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const name of ['postgres', 'nobody']) {
    try {
      const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
      return { uid: id('-u'), gid: id('-g') };
    } catch {
      // no such user: try the next
    }
  }
  throw new Error('running as root, but neither a postgres nor a nobody user exists to run PostgreSQL');
}

const live = new Map<string, () => number | undefined>();
let exitHook = false;

export async function startPostgres(opts: { tmpRoot?: string } = {}): Promise<PgServer> {
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const [dir, pid] of live) {
        const p = pid();
        if (p) signalGroup(p, 'SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
  const bin = pgBinDir();
  const account = serverAccount();
  const dir = await mkdtemp(join(opts.tmpRoot ?? process.env.OPTOUT_TEST_TMPDIR ?? tmpdir(), 'optout-pg-'));
  const data = join(dir, 'data');
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let port = 0;
  let closed = false;
  live.set(dir, () => child?.pid);

  /** argv run as the server account (setpriv drops root; --pdeathsig ties it to us). */
  function asServer(argv: string[], pdeathsig: boolean): string[] {
    const drop = account ? ['--reuid', String(account.uid), '--regid', String(account.gid), '--clear-groups'] : [];
    if (!SETPRIV) {
      if (account) throw new Error('running as root needs setpriv (util-linux) to start PostgreSQL as another user');
      return argv;
    }
    return [SETPRIV, ...drop, ...(pdeathsig ? ['--pdeathsig', 'KILL'] : []), ...argv];
  }

  async function logs(): Promise<string> {
    return readFile(join(dir, 'postgres.log'), 'utf8').catch(() => '');
  }

  async function launch(allowNewPort: boolean): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (port === 0) port = (await freePorts(1))[0]!;
      const out = openSync(join(dir, 'postgres.log'), 'a');
      const [cmd, ...args] = asServer(
        [
          join(bin, 'postgres'),
          '-D',
          data,
          '-k',
          dir,
          '-h',
          '127.0.0.1',
          '-p',
          String(port),
          '-c',
          'fsync=off',
          '-c',
          'synchronous_commit=off',
          '-c',
          'full_page_writes=off',
          '-c',
          'max_connections=200',
          '-c',
          'shared_buffers=32MB',
        ],
        true,
      );
      // detached: its own process group, so kill() reaches the postmaster and its backends
      const c = spawn(cmd!, args, { detached: true, stdio: ['ignore', out, out] });
      closeSync(out);
      c.unref();
      const gone = new Promise<void>((r) => c.once('exit', () => r()));
      c.once('error', () => {}); // ENOENT shows up as an exit
      child = c;
      exited = gone;
      const ready = await waitReady(port, gone);
      if (ready === 'ready') return;
      child = null;
      c.ref();
      if (c.pid) signalGroup(c.pid, 'SIGKILL');
      await gone;
      const log = await logs();
      if (allowNewPort && attempt < 5 && /could not bind|Address already in use/.test(log)) {
        port = 0;
        continue;
      }
      throw new Error(`postgres did not start (${ready}):\n${log.slice(-4000)}`);
    }
  }

  async function halt(signal: 'SIGINT' | 'SIGKILL'): Promise<void> {
    const c = child;
    child = null;
    if (!c?.pid) return;
    c.ref(); // keep the event loop alive until the exit event arrives
    if (signal === 'SIGKILL') signalGroup(c.pid, 'SIGKILL');
    else c.kill('SIGINT'); // fast shutdown: the postmaster ends the backends itself
    await exited;
    if (signal === 'SIGKILL') {
      // the backends notice the postmaster's death on their own; wait until none holds the port
      // (a loaded machine can take seconds to reap them; a start meanwhile finds their shared memory)
      for (let i = 0; i < 500 && signalGroup(c.pid, 0); i++) await sleep(20);
    }
  }

  try {
    if (account) await chown(dir, account.uid, account.gid);
    const initdb = [join(bin, 'initdb'), '-D', data, '-U', SUPERUSER, '--auth=trust', '--no-sync'];
    const [cmd, ...args] = asServer([...initdb, '--encoding=UTF8', '--locale=C.UTF-8'], false);
    execFileSync(cmd!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    await launch(true);
  } catch (err) {
    await halt('SIGKILL');
    live.delete(dir);
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    throw err;
  }

  return {
    get url() {
      return `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
    },
    get port() {
      return port;
    },
    dir,
    stop: () => halt('SIGINT'),
    kill: () => halt('SIGKILL'),
    async start() {
      if (closed) throw new Error('start() after close()');
      if (child) return;
      await launch(false);
    },
    async close() {
      if (closed) return;
      closed = true;
      await halt('SIGINT');
      live.delete(dir);
      await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    },
    logs,
  };
}

/** Ready once a client can sign in and run a query (not merely when the port is open). */
async function waitReady(port: number, exited: Promise<void>): Promise<'ready' | 'exited' | 'timeout'> {
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const until = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < until) {
    if (gone) return 'exited';
    const c = new pg.Client({ host: '127.0.0.1', port, user: SUPERUSER, database: 'postgres' });
    c.on('error', () => {});
    try {
      await c.connect();
      await c.query('select 1');
      await c.end();
      return 'ready';
    } catch {
      await c.end().catch(() => {});
      await sleep(50);
    }
  }
  return gone ? 'exited' : 'timeout';
}
