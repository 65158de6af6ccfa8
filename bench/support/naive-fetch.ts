/**
 * The naive approach for bench/scan: every whole message (BODY.PEEK[], imapflow's
 * `source: true`) through imapflow on one connection, streamed and only counted.
 *
 *   node bench/support/naive-fetch.ts <port> <user> <password>
 *
 * Prints one JSON line: fetch_ms (sign-in done → last message), bytes (message sources),
 * messages, peak_rss_mb.
 */
import { readFileSync } from 'node:fs';
import { ImapFlow } from 'imapflow';

const [port = '993', user = '', password = ''] = process.argv.slice(2);
const client = new ImapFlow({
  host: '127.0.0.1',
  port: Number(port),
  secure: true,
  auth: { user, pass: password },
  logger: false,
  disableAutoIdle: true,
});
client.on('error', () => {});
await client.connect();
const signedIn = performance.now();
await client.mailboxOpen('INBOX', { readOnly: true });
let bytes = 0;
let messages = 0;
for await (const msg of client.fetch('1:*', { uid: true, source: true }, { uid: true })) {
  bytes += msg.source?.length ?? 0;
  messages++;
}
const done = performance.now();
await client.logout();
const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
process.stdout.write(
  `${JSON.stringify({ fetch_ms: Math.round(done - signedIn), bytes, messages, peak_rss_mb: Math.round(Number(hwm) / 1024) })}\n`,
);
