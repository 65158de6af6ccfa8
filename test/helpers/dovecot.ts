/**
 * A private Dovecot 2.3 (Debian's dovecot-imapd) for tests: its own temp dir, config,
 * free loopback ports, TLS with the test CA's certificate (tls-ca.ts), passwd-file users
 * and Maildir mailboxes written straight to disk before start (thousands of messages in
 * a fraction of a second; Dovecot assigns UIDs on first SELECT, in message order).
 *
 *   const mail = await startDovecot({ users: [{ user: 'alice@example.test', password: 'pw',
 *     mailboxes: byMailbox(generateMailbox({ seed: 1, lists: 10, ... }).messages) }] });
 *   trustTestCa();  // then: new ImapFlow({ host: mail.host, port: mail.imapsPort, secure: true, ... })
 *   await mail.stop();
 *
 * Each call is independent; several instances can run at once, as root (CI) or not.
 * Anything still running when the process exits is SIGKILLed and its temp dir removed; if
 * the process is killed outright, the kernel kills the master (setpriv --pdeathsig) and the
 * temp dir stays behind.
 *
 * Dovecot 2.3 facts this relies on (verified with 2.3.19.1):
 * - A connection whose remote IP equals its local IP counts as "secured"
 *   (login-common/client-common.c), so on 127.0.0.1 plaintext LOGIN works without
 *   STARTTLS whatever disable_plaintext_auth/ssl=required say. `refusePlaintextLogin`
 *   serves on 127.0.0.2 instead (clients connect from 127.0.0.1), where Dovecot behaves
 *   as a real server: LOGINDISABLED until STARTTLS, and [PRIVACYREQUIRED] on LOGIN.
 * - Right after start, the first connection may be greeted with
 *   "* OK Waiting for authentication process to respond.." before the real greeting;
 *   startDovecot waits until both ports give the real greeting.
 * - A failed login is answered after auth_failure_delay (2 s), and anvil's auth penalty
 *   then delays every later login from that IP, right or wrong, doubling up to 15 s. Even
 *   with auth_failure_delay = 0, 2.3.19 answers failures on a 500 ms timer unless the passdb
 *   reply says "nodelay" (see the second passdb in the config). Unless `authFailDelay` is
 *   set, failures are answered at once (~20 ms) and no penalty builds up.
 * - Dovecot's own SIGTERM shutdown takes ~1.1 s; stop() SIGKILLs the process group instead.
 * - Mail users must not be root; as root, mail is owned by `nobody`, services run as the
 *   Debian users dovecot/dovenull. As another user, every service runs as that user
 *   (default_internal_user/group, no chroot).
 */
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, closeSync, existsSync, openSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dovecotConf, folderPath, oauth2Conf, pickTmpRoot } from './dovecot-files.ts';
import {
  freePorts,
  groupAlive,
  identities,
  installExitHook,
  live,
  type Running,
  signalGroup,
  sleep,
  waitReady,
} from './dovecot-process.ts';
import { caPath } from './tls-ca.ts';

const DOVECOT = process.env.DOVECOT_BIN ?? '/usr/sbin/dovecot';
const DEFAULT_SPECIAL_USE = { Archive: '\\Archive', Junk: '\\Junk', Sent: '\\Sent', Trash: '\\Trash' };
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

/** What is written to Maildir: the fixture generator's GeneratedMessage fits. */
export interface MaildirMessage {
  /** the whole message, headers and body (CRLF line ends, as on the wire) */
  raw: Buffer;
  seen: boolean;
  /** the received date: file mtime, which Dovecot reports as INTERNALDATE */
  date: Date;
}

export interface DovecotUser {
  /** login name; Dovecot lower-cases it (auth_username_format = %Lu) */
  user: string;
  /** absent: the user signs in with OAuth 2.0 only (needs `oauth2Introspection`) */
  password?: string;
  /**
   * IMAP mailbox name ('INBOX', 'Archive', 'Junk', 'Lists/Deals': '/' separates levels) →
   * its messages, in UID order. The mailboxes of `specialUse` always exist with their flags;
   * other names are created as plain folders. A name component may not contain '.'
   * (Maildir++ uses it on disk).
   */
  mailboxes?: Record<string, MaildirMessage[]>;
}

export interface DovecotOptions {
  users: DovecotUser[];
  /** keep Dovecot's 2 s delay and escalating penalty after a failed login (default: off) */
  authFailDelay?: boolean;
  /** serve on 127.0.0.2 so plaintext LOGIN before STARTTLS is refused (see the file header) */
  refusePlaintextLogin?: boolean;
  /**
   * Mailbox name → RFC 6154 special-use flag, over the defaults (Archive \\Archive, Junk
   * \\Junk, Sent \\Sent, Trash \\Trash); null drops a default. E.g. a Gmail-like tree:
   * `{ '[Gmail]/All Mail': '\\All', Archive: null }`. The same for every user.
   */
  specialUse?: Record<string, string | null>;
  /**
   * Also sign in with OAuth 2.0 access tokens (AUTHENTICATE XOAUTH2), checked by introspection at
   * this URL (an identity provider's RFC 7662 endpoint, client credentials in the userinfo;
   * oidc-idp.ts gives one). Users may then have no password.
   */
  oauth2Introspection?: string;
  /** mail_max_userip_connections (Dovecot's default: 10 per user and IP) */
  maxUserConnections?: number;
  /**
   * Where the temp dir goes. Default: $OPTOUT_TEST_TMPDIR, else /dev/shm when it has room
   * for the mail four times over (creating files on this VM's ext4 costs ~0.5 ms each, on
   * tmpfs ~0.02 ms), else os.tmpdir(). A disk-bound benchmark should pass os.tmpdir().
   */
  tmpRoot?: string;
}

export interface Dovecot {
  /** '127.0.0.1' (or '127.0.0.2' with refusePlaintextLogin); both are in the certificate */
  host: string;
  /** plain IMAP with STARTTLS */
  imapPort: number;
  /** IMAP over implicit TLS */
  imapsPort: number;
  /** the CA that signed the server certificate, for NODE_EXTRA_CA_CERTS */
  caPath: string;
  /** the instance's temp dir: dovecot.conf, dovecot.log, mail/<user>/… */
  dir: string;
  /** stop every Dovecot process (SIGKILL: nothing to flush) and remove the temp dir; idempotent */
  stop(): Promise<void>;
  /** SIGKILL the master and all its children at once (open connections drop); keeps the dir */
  kill(): Promise<void>;
  /** start again on the same ports and mail, after kill() or while running */
  restart(): Promise<void>;
  /** the server log so far (auth failures are logged: auth_verbose = yes) */
  logs(): Promise<string>;
  /**
   * Add messages to a mailbox, as a delivery agent would (also before restart()). Open
   * sessions see them at their next STATUS/NOOP/SELECT; a folder that did not exist shows
   * up in LIST only for sessions opened afterwards (Dovecot's mailbox list index).
   */
  deliver(user: string, mailbox: string, messages: MaildirMessage[]): Promise<void>;
  /** how long writing the Maildir files and starting Dovecot took */
  timings: { writeMs: number; startMs: number };
}

export async function startDovecot(opts: DovecotOptions): Promise<Dovecot> {
  installExitHook();
  for (const u of opts.users) {
    if (!/^[^\s:/\\]+$/.test(u.user) || u.user.startsWith('.')) throw new Error(`unusable test user name: ${u.user}`);
  }
  const dir = await mkdtemp(
    join(opts.tmpRoot ?? process.env.OPTOUT_TEST_TMPDIR ?? pickTmpRoot(opts.users), 'optout-dovecot-'),
  );
  const host = opts.refusePlaintextLogin ? '127.0.0.2' : '127.0.0.1';
  const specialUse: Record<string, string> = {};
  for (const [name, flag] of Object.entries({ ...DEFAULT_SPECIAL_USE, ...opts.specialUse }))
    if (flag !== null) specialUse[name] = flag;
  const ids = identities();
  const asRoot = process.getuid?.() === 0;
  const confPath = join(dir, 'dovecot.conf');
  /** per folder: the last number used in a file name (keeps UID order across deliver()) */
  const counters = new Map<string, number>();
  let ports: number[] = [];
  let running: Running | null = null;
  let launched = false;
  let stopped = false;
  live.set(dir, { pid: () => running?.child.pid });

  /** Writes messages to cur/; while Dovecot runs, via tmp/ and a rename, so it never sees half a file. */
  async function writeMessages(user: string, mailbox: string, messages: MaildirMessage[]): Promise<void> {
    const root = join(dir, 'mail', user.toLowerCase());
    const folder = folderPath(root, mailbox);
    const made: string[] = [];
    for (const sub of ['', 'cur', 'new', 'tmp']) {
      if (await mkdir(join(folder, sub), { recursive: true })) made.push(join(folder, sub));
    }
    if (folder !== root) await writeFile(join(folder, 'maildirfolder'), '');
    // Before the first start one `chown -R` does it all; after that, Dovecot must own what it finds.
    const own = asRoot && launched;
    if (own)
      for (const p of [root, ...made, join(folder, 'maildirfolder')]) await chown(p, ids.uid, ids.gid).catch(() => {});
    let seq = counters.get(folder) ?? 0;
    const files = messages.map((msg) => {
      seq++;
      // Dovecot gives new files UIDs in the order of the time stamp that starts the name,
      // so a counter there keeps the caller's order. S= is the file size, :2,S the \Seen flag.
      return {
        name: `${1_000_000_000 + seq}.M${seq}P${process.pid}.optout,S=${msg.raw.length}:2,${msg.seen ? 'S' : ''}`,
        msg,
      };
    });
    counters.set(folder, seq);
    const hot = running !== null;
    // Synchronous calls in slices: on tmpfs 2000 files take ~40 ms this way and ~5x longer
    // through libuv's thread pool; the slices keep other servers in this process responsive.
    for (let i = 0; i < files.length; i += 100) {
      for (const { name, msg } of files.slice(i, i + 100)) {
        const path = join(folder, hot ? 'tmp' : 'cur', name);
        writeFileSync(path, msg.raw);
        utimesSync(path, msg.date, msg.date);
        if (own) chownSync(path, ids.uid, ids.gid);
        if (hot) renameSync(path, join(folder, 'cur', name));
      }
      await new Promise((r) => setImmediate(r));
    }
  }

  async function launch(allowNewPorts: boolean): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      await writeFile(
        confPath,
        dovecotConf({
          dir,
          host,
          imapPort: ports[0]!,
          imapsPort: ports[1]!,
          ...ids,
          asRoot,
          authFailDelay: opts.authFailDelay ?? false,
          maxUserConnections: opts.maxUserConnections ?? 10,
          specialUse,
          oauth2: opts.oauth2Introspection,
        }),
      );
      const out = openSync(join(dir, 'startup.log'), 'a');
      // -F: Dovecot stays in the foreground as our child, so its exit is observable (and it
      // is reaped); detached: its own process group, so kill() takes master and children.
      // setpriv --pdeathsig: should this process die without running its exit hook (SIGTERM
      // from a test runner's timeout, a crash), the kernel SIGKILLs the master, and its
      // children follow within a second.
      const argv = [DOVECOT, '-F', '-c', confPath];
      const [cmd, ...args] = SETPRIV ? [SETPRIV, '--pdeathsig', 'KILL', ...argv] : argv;
      const child = spawn(cmd!, args, { detached: true, stdio: ['ignore', out, out] });
      closeSync(out);
      child.unref();
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.once('error', () => {}); // ENOENT etc. show up as an exit below
      running = { child, exited };
      const ready = await waitReady(host, ports, exited, logs);
      if (ready === 'ready') {
        launched = true;
        return;
      }
      running = null;
      child.ref(); // so the loop waits for the exit event
      if (child.pid) signalGroup(child.pid, 'SIGKILL');
      await exited;
      const log = await logs();
      if (allowNewPorts && attempt < 5 && /Address already in use/.test(log)) {
        ports = await freePorts(2);
        continue;
      }
      throw new Error(`dovecot did not start (${ready}):\n${log.slice(-4000)}`);
    }
  }

  /**
   * SIGKILL the whole process group and wait for it to be gone. Dovecot's own SIGTERM
   * shutdown takes ~1.1 s (the master waits for its children); a throwaway instance has
   * nothing to flush, so stop() does not wait for that either.
   */
  async function halt(): Promise<void> {
    const r = running;
    running = null;
    if (!r?.child.pid) return;
    const pid = r.child.pid;
    r.child.ref(); // keep the event loop alive until the exit event arrives
    signalGroup(pid, 'SIGKILL');
    await r.exited;
    // The children, now re-parented to init, die asynchronously; wait (bounded) for them.
    for (let i = 0; i < 50 && groupAlive(pid); i++) await sleep(10);
  }

  async function logs(): Promise<string> {
    const read = (f: string) => readFile(join(dir, f), 'utf8').catch(() => '');
    return (await read('startup.log')) + (await read('dovecot.log'));
  }

  const timings = { writeMs: 0, startMs: 0 };
  try {
    // mkdtemp made the dir 0700; mail processes run as the mail uid and must reach mail/.
    await chmod(dir, 0o755);
    const passwd = opts.users
      .filter((u) => u.password !== undefined)
      // {PLAIN.B64}: any password bytes survive passwd-file's ':'-separated format.
      .map((u) => `${u.user.toLowerCase()}:{PLAIN.B64}${Buffer.from(u.password!).toString('base64')}\n`)
      .join('');
    if (opts.oauth2Introspection) {
      await writeFile(join(dir, 'dovecot-oauth2.conf.ext'), oauth2Conf(opts.oauth2Introspection), { mode: 0o644 });
    }
    // Read by the auth process, which runs as default_internal_user; test passwords only.
    await writeFile(join(dir, 'passwd'), passwd, { mode: 0o644 });
    const t0 = performance.now();
    await mkdir(join(dir, 'mail'));
    for (const u of opts.users) {
      await mkdir(join(dir, 'mail', u.user.toLowerCase()), { recursive: true });
      for (const [name, messages] of Object.entries(u.mailboxes ?? {})) await writeMessages(u.user, name, messages);
    }
    if (asRoot) execFileSync('chown', ['-R', `${ids.uid}:${ids.gid}`, join(dir, 'mail')]);
    timings.writeMs = performance.now() - t0;
    const t1 = performance.now();
    ports = await freePorts(2);
    await launch(true);
    timings.startMs = performance.now() - t1;
  } catch (err) {
    await halt();
    live.delete(dir);
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    throw err;
  }

  return {
    host,
    get imapPort() {
      return ports[0]!;
    },
    get imapsPort() {
      return ports[1]!;
    },
    caPath,
    dir,
    timings,
    async stop() {
      if (stopped) return;
      stopped = true;
      await halt();
      live.delete(dir);
      await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    },
    kill: () => halt(),
    async restart() {
      if (stopped) throw new Error('restart() after stop()');
      await halt();
      await launch(false);
    },
    logs,
    async deliver(user, mailbox, messages) {
      if (stopped) throw new Error('deliver() after stop()');
      await writeMessages(user, mailbox, messages);
    },
  };
}
