/**
 * One optout scan for bench/scan, in a process of its own so that its peak RSS is its own:
 * runScan() exactly as the /ws channel calls it, with the real outbound guard (allowing only
 * the benchmark's Dovecot port), every subscription serialized as /ws would send it.
 *
 *   node bench/support/scan-child.ts <port> <user> <password> <lean|imapflow> [warm-up user|-] [drop|-] [warm-ups=3]
 *
 * Prints one JSON line: scan_ms (sign-in done → result), first_subscription_ms (sign-in done →
 * first subscription), cpu_ms (this process's CPU time in that window), peak_rss_mb (VmHWM at
 * the end), scanned, subscriptions, subscription_updates (the subscription messages /ws would
 * have sent), ws_bytes (their JSON), reader.
 * "Sign-in done" is the 'listing' progress report, sent right after imapflow's login.
 *
 * With a warm-up user, that mailbox is scanned `warm-ups` times first, unmeasured: the process
 * then runs the measured scan in a server's steady state. A fresh process spends its first
 * ~50k messages in V8's lower tiers and with a young generation still growing (measured here:
 * 20k-message scans in one process took 250, 196, 173, 142, 151 ms, scavenges 18, 7, 7, 3, 5),
 * so three 20k scans come first; bench/scan reports the first scan of a process separately. With `drop`, the OS page cache
 * is dropped (sync; echo 3 > /proc/sys/vm/drop_caches, root only) right before the measured scan,
 * so the warm-up cannot leave the measured mailbox's files in memory; `page_cache_dropped` says
 * whether the kernel accepted it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { runScan } from '../../src/mailbox/scan.ts';
import { keepTickShape } from '../../src/memory/tick-shape.ts';
import { createOutboundGuard } from '../../src/outbound/guard.ts';

// as the service's process does at start (src/main.ts, src/memory/tick-shape.ts)
keepTickShape();

const [port = '993', user = '', password = '', reader = 'lean', warmUser = '-', drop, warmUps = '3'] =
  process.argv.slice(2);
const guard = createOutboundGuard({ allowHosts: [`127.0.0.1:${port}`] });
let signedIn = 0;
let cpuAtSignIn = process.cpuUsage();
let firstSubscription = 0;
let sent = 0;
let updates = 0;

const scan = (who: string) =>
  runScan(
    { host: '127.0.0.1', port: Number(port), tls: 'implicit' },
    { user: who, password },
    guard,
    { matchService: () => null, leanFetch: reader === 'lean' },
    {
      progress: (p) => {
        if (p.phase === 'listing' && signedIn === 0) {
          signedIn = performance.now();
          cpuAtSignIn = process.cpuUsage();
        }
      },
      subscription: (s) => {
        if (firstSubscription === 0) firstSubscription = performance.now();
        sent += JSON.stringify({ type: 'subscription', subscription: s }).length;
        updates++;
      },
      started: async () => true,
    },
  );

for (let i = 0; warmUser !== '-' && i < Number(warmUps); i++) {
  const warm = await scan(warmUser);
  if (!warm.ok) {
    process.stderr.write(`scan-child: warm-up ${warm.code}\n`);
    process.exit(2);
  }
  signedIn = 0;
  firstSubscription = 0;
  sent = 0;
  updates = 0;
}
let dropped: boolean | null = null;
if (drop === 'drop') {
  try {
    execFileSync('sh', ['-c', 'sync && echo 3 > /proc/sys/vm/drop_caches'], { stdio: 'ignore' });
    dropped = true;
  } catch {
    dropped = false;
  }
}
const result = await scan(user);
const done = performance.now();
const cpu = process.cpuUsage(cpuAtSignIn);
await guard.close();
const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
if (!result.ok) {
  process.stderr.write(`scan-child: ${result.code} ${result.message}\n`);
  process.exit(2);
}
process.stdout.write(
  `${JSON.stringify({
    scan_ms: Math.round(done - signedIn),
    first_subscription_ms: firstSubscription ? Math.round(firstSubscription - signedIn) : null,
    cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
    peak_rss_mb: Math.round(Number(hwm) / 1024),
    scanned: result.scanned,
    subscriptions: result.subscriptions.length,
    ws_bytes: sent,
    subscription_updates: updates,
    reader: result.reader,
    page_cache_dropped: dropped,
  })}\n`,
);
