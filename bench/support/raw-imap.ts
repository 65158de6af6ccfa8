/**
 * The raw-protocol baseline for bench/scan: a minimal IMAP client of its own. TLS, LOGIN,
 * EXAMINE, then ONE `UID FETCH 1:*` of the same items optout's reader asks for, on one
 * connection; it only counts bytes (finding line ends and skipping `{n}` literals) until the
 * tagged OK. Nothing is parsed or kept, so its time is the practical single-connection limit.
 *
 *   node bench/support/raw-imap.ts <host> <port> <user> <password> [mailbox=INBOX] [fetch|fetch-no-dkim|examine]
 *
 * `examine` stops after EXAMINE (bench/scan uses it to have Dovecot index a new Maildir).
 *
 * Prints one JSON line: {login_ms, fetch_ms (login done → tagged OK, EXAMINE included), cpu_ms
 * (this process's CPU time in that window), bytes, messages, peak_rss_mb}. The CA comes from NODE_EXTRA_CA_CERTS; certificates are verified.
 */
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { FETCH_ITEMS } from '../../src/mailbox/fetch-reader.ts';

const [host = '127.0.0.1', port = '993', user = '', password = '', mailbox = 'INBOX', mode = 'fetch'] =
  process.argv.slice(2);
const quote = (s: string) => `"${s.replace(/["\\]/g, '\\$&')}"`;

const started = performance.now();
const socket = tls.connect({ host, port: Number(port), rejectUnauthorized: true });
socket.on('error', (err) => {
  process.stderr.write(`raw-imap: ${err.message}\n`);
  process.exit(2);
});

let waitingFor = ''; // the tag whose completion ends the current step
let onTagged: (line: string) => void = () => {};
let literalLeft = 0;
let partial: Buffer = Buffer.alloc(0);
let bytes = 0;
let messages = 0;

socket.on('data', (chunk: Buffer) => {
  bytes += chunk.length;
  const buf: Buffer = partial.length ? Buffer.concat([partial, chunk]) : chunk;
  let pos = 0;
  while (pos < buf.length) {
    if (literalLeft > 0) {
      const take = Math.min(literalLeft, buf.length - pos);
      literalLeft -= take;
      pos += take;
      continue;
    }
    const nl = buf.indexOf(10, pos);
    if (nl < 0) break;
    // "{n}\r\n" at the end of a line: n bytes of literal follow
    if (buf[nl - 2] === 0x7d) {
      const open = buf.lastIndexOf(0x7b, nl - 2);
      if (open >= pos) literalLeft = Number(buf.toString('latin1', open + 1, nl - 2));
      if (buf[pos] === 0x2a) messages++;
    } else if (
      waitingFor &&
      buf[pos] !== 0x2a &&
      buf.toString('latin1', pos, pos + waitingFor.length + 1) === `${waitingFor} `
    ) {
      onTagged(buf.toString('latin1', pos, nl).trim());
    }
    pos = nl + 1;
  }
  partial = pos < buf.length && literalLeft === 0 ? buf.subarray(pos) : Buffer.alloc(0);
});

function step(tag: string, command: string): Promise<string> {
  return new Promise((resolve) => {
    waitingFor = tag;
    onTagged = (line) => {
      waitingFor = '';
      resolve(line);
    };
    socket.write(`${tag} ${command}\r\n`);
  });
}

function expectOk(line: string, what: string): void {
  if (!/^\S+ OK/i.test(line)) {
    process.stderr.write(`raw-imap: ${what} failed\n`);
    process.exit(2);
  }
}

await new Promise((r) => socket.once('secureConnect', r));
expectOk(await step('a', `LOGIN ${quote(user)} ${quote(password)}`), 'LOGIN');
const loggedIn = performance.now();
const cpuAtLogin = process.cpuUsage();
bytes = 0;
messages = 0;
expectOk(await step('b', `EXAMINE ${quote(mailbox)}`), 'EXAMINE');
// fetch-no-dkim: the items as they were before the scan fetched DKIM-Signature (and asked for
// at most SCAN_MAX_HEADER_BYTES): bench/scan's baseline for what that field costs.
const BEFORE_DKIM = FETCH_ITEMS.replace(' DKIM-SIGNATURE', '').replace(/<0\.\d+>/, '');
if (mode === 'fetch') expectOk(await step('c', `UID FETCH 1:* ${FETCH_ITEMS}`), 'FETCH');
if (mode === 'fetch-no-dkim') expectOk(await step('c', `UID FETCH 1:* ${BEFORE_DKIM}`), 'FETCH');
const done = performance.now();
const cpu = process.cpuUsage(cpuAtLogin);
socket.end('z LOGOUT\r\n');
const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
process.stdout.write(
  `${JSON.stringify({
    login_ms: Math.round(loggedIn - started),
    fetch_ms: Math.round(done - loggedIn),
    cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
    bytes,
    messages,
    peak_rss_mb: Math.round(Number(hwm) / 1024),
  })}\n`,
);
socket.destroy();
