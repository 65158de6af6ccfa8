/**
 * bench/unsubscribe: 500 one-click senders spread over 50 host names, all served by one
 * HTTPS endpoint on loopback that answers after 200 ms. The engine's HTTP pool allows
 * 32 requests at once and 4 per host, so the ideal is 500 × 200 ms / 32 = 3.1 s.
 * Target (issue 5): total within 1.2 × ideal. Prints the figures and the ratio.
 *
 *   npx node bench/unsubscribe.ts [senders=500] [delayMs=200]
 */
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Subscription } from '../src/mailbox/types.ts';
import { createOutboundGuard } from '../src/outbound/guard.ts';
import { runUnsubscribe } from '../src/unsubscribe/engine.ts';
import { certPath, keyPath, trustTestCa } from '../test/helpers/tls-ca.ts';

const SENDERS = Number(process.argv[2] ?? 500);
const DELAY = Number(process.argv[3] ?? 200);
const HOSTS = 50;
const CONCURRENCY = 32;
const PER_HOST = 4;

// The tests' private CA: its certificate covers *.loopback.test, trusted by this process only.
trustTestCa();

// The endpoint runs in its own process: its CPU must not be billed to the engine.
const endpoint = spawn(
  process.execPath,
  [join(import.meta.dirname, 'support/slow-endpoint.ts'), String(DELAY), keyPath, certPath],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const lines = createInterface({ input: endpoint.stdout! })[Symbol.asyncIterator]();
const nextLine = async () => String((await lines.next()).value ?? '{}');
const port = (JSON.parse(await nextLine()) as { port: number }).port;
const hosts = Array.from({ length: HOSTS }, (_, i) => `host-${i}.loopback.test`);
const guard = createOutboundGuard({
  allowHosts: hosts.map((h) => `${h}:${port}`),
  lookup: async () => [{ address: '127.0.0.1', family: 4 }],
});

const subs: Subscription[] = Array.from({ length: SENDERS }, (_, i) => ({
  id: `s${i}`,
  list_key: `from:n${i}@x`,
  sender: { name: '', address: `n${i}@x`, domain: 'x' },
  list_id: null,
  count: 1,
  first_seen: null,
  last_seen: null,
  per_month: 1,
  read_rate: 0,
  methods: { one_click: `https://${hosts[i % HOSTS]}:${port}/u/${i}`, http: [], mailto: [] },
  one_click_withheld: null,
  sample_subjects: [],
  auth: { dkim: 'pass', spf: 'pass', dmarc: 'pass' },
  mailboxes: ['INBOX'],
  junk_only: false,
  service: null,
}));

const started = performance.now();
const summary = await runUnsubscribe(
  subs,
  { guard, mailto: null },
  { dryRun: false, includeFlagged: new Set(), httpConcurrency: CONCURRENCY, perHostConcurrency: PER_HOST },
  () => {},
);
const total = performance.now() - started;
const ideal = (SENDERS * DELAY) / CONCURRENCY;
const ratio = total / ideal;

endpoint.kill('SIGTERM');
const served = JSON.parse(await nextLine()) as { requests: number; peak: number; handshakes: number };
await guard.close();

const out = {
  bench: 'unsubscribe',
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  senders: SENDERS,
  hosts: HOSTS,
  endpoint_delay_ms: DELAY,
  concurrency: CONCURRENCY,
  per_host: PER_HOST,
  unsubscribed: summary.counts.unsubscribed,
  posts_received: served.requests,
  peak_in_flight: served.peak,
  tls_handshakes: served.handshakes,
  total_ms: Math.round(total),
  ideal_ms: Math.round(ideal),
  ratio: Math.round(ratio * 1000) / 1000,
  target: '≤ 1.2',
  pass: ratio <= 1.2 && summary.counts.unsubscribed === SENDERS,
};
process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
process.exitCode = out.pass ? 0 : 1;
