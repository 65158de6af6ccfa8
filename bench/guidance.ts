/**
 * bench/guidance, two parts.
 *
 * 1. POST /api/v1/analyzer and POST /api/v1/guide (offline template writer) next to
 *    GET /api/v1/services/{slug} in the same run: the real service as a process as `npm start`
 *    runs it (embedded PGlite, the default log level, its log to a file), autocannon from this process, each endpoint at full speed with
 *    the same connections. The guide route allows 20 requests per minute per client IP, so the
 *    service runs with TRUST_PROXY=true and every request (on all three endpoints alike) carries
 *    its own X-Forwarded-For: the limiter still counts each request, but never refuses one, so
 *    the figure is the writer's, not the limiter's.
 *
 * 2. The link-check worker: 100 services whose cancel page is a loopback website (its own
 *    process) that answers after 200 ms; the runtime is built in this process (createRuntime,
 *    default queue timing and concurrency) on embedded PGlite and on PostgreSQL. Measured from
 *    the first enqueue to the 100th recorded link_checks row.
 *    Target: total ≤ 1.3 × 100 × 200 ms / concurrency. PostgreSQL is the server TEST_PG_URL
 *    names (a superuser URL; the figures in docs/benchmarks.md were taken on the machine's
 *    PostgreSQL 15, which TEST_PG_URL=postgres://root@127.0.0.1:5432/test measures again); without it, the tests' private server (test/helpers/pg-server.ts,
 *    durability off), which is not a production configuration.
 *
 *   npx node bench/guidance.ts [seconds=8] [connections=10]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { RawRequest } from 'autocannon';
import pino from 'pino';
import { syncCatalog } from '../src/catalog/sync.ts';
import { loadConfig } from '../src/config.ts';
import { DEFAULT_CONCURRENCY, DEFAULT_TIMING } from '../src/linkcheck/queue.ts';
import { createLogger } from '../src/log.ts';
import { createRuntime } from '../src/runtime.ts';
import { openStorage } from '../src/storage/index.ts';
import { loopbackCatalog } from '../test/helpers/catalog.ts';
import { createTestDatabase } from '../test/helpers/postgres.ts';
import { compare, type LoadResult } from './support/load.ts';
import { killOnExit, machineLoad, round, rssMiB, startOptout } from './support/optout-process.ts';

const SECONDS = Number(process.argv[2] ?? 8);
const CONNECTIONS = Number(process.argv[3] ?? 10);
const CHECKS = 100;
const DELAY = 200;
const loadAtStart = machineLoad();

const dir = mkdtempSync(join(tmpdir(), 'optout-bench-guidance-'));

// ---- 1. analyzer and guide next to the catalog lookup --------------------------------------

// The default log level; TRUST_PROXY is the one setting that differs (see below).
const optout = await startOptout(
  { DATA_DIR: join(dir, 'data'), TRUST_PROXY: 'true' },
  { logFile: join(dir, 'optout.log') },
);
const SLUGS = ['netflix', 'spotify', 'planet-fitness', 'audible', 'amazon-prime', 'new-york-times'];
const GUIDE_OPTIONS = [{}, { tone: 'terse', locale: 'de' }, { tone: 'reassuring', locale: 'fr' }, { locale: 'es' }];

// A different client address for every request: 10.a.b.c counting up.
let client = 0;
const fromNewClient = (req: RawRequest): RawRequest => {
  client++;
  const ip = `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`;
  return { ...req, headers: { ...req.headers, 'x-forwarded-for': ip } };
};
const json = { 'content-type': 'application/json' };
const ENDPOINTS: Record<string, RawRequest[]> = {
  lookup: SLUGS.map((slug) => ({ method: 'GET', path: `/api/v1/services/${slug}` })),
  analyzer: SLUGS.map((slug) => ({
    method: 'POST',
    path: '/api/v1/analyzer',
    headers: json,
    body: JSON.stringify({ slug }),
  })),
  guide: SLUGS.flatMap((slug) =>
    GUIDE_OPTIONS.map((options) => ({
      method: 'POST',
      path: '/api/v1/guide',
      headers: json,
      body: JSON.stringify({ slug, options }),
    })),
  ),
};
for (const reqs of Object.values(ENDPOINTS)) {
  for (const r of reqs) {
    const req = fromNewClient(r);
    const res = await fetch(optout.url + r.path, { method: r.method, headers: req.headers, body: r.body as string });
    if (res.status !== 200) throw new Error(`${r.method} ${r.path} ${r.body ?? ''}: ${res.status}`);
    await res.arrayBuffer();
  }
}

const targets = (entries: [string, RawRequest[]][]) =>
  Object.fromEntries(
    entries.map(([name, reqs]) => [
      name,
      { url: optout.url, requests: reqs.map((req) => ({ ...req, setupRequest: fromNewClient })) },
    ]),
  );
await compare(targets(Object.entries(ENDPOINTS)), { connections: CONNECTIONS, duration: 6, rounds: 1 }); // warm-up
const { results, per_round_req_per_s } = await compare(targets(Object.entries(ENDPOINTS)), {
  connections: CONNECTIONS,
  duration: SECONDS,
  rounds: 4,
});
const endpoints: Record<string, LoadResult & { vs_lookup?: number; per_slice_req_per_s: number[] }> = {};
for (const [name, r] of Object.entries(results)) {
  endpoints[name] = {
    ...r,
    ...(name === 'lookup' ? {} : { vs_lookup: round(r.req_per_s / results.lookup!.req_per_s, 3) }),
    per_slice_req_per_s: per_round_req_per_s[name]!,
  };
}
const rss = rssMiB(optout.pid);
await optout.stop();

// ---- 2. link-check worker throughput --------------------------------------------------------

const target = killOnExit(
  spawn(process.execPath, [join(import.meta.dirname, 'support/slow-endpoint.ts'), String(DELAY)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  }),
);
const targetLine = await createInterface({ input: target.stdout! })[Symbol.asyncIterator]().next();
const port = (JSON.parse(String(targetLine.value)) as { port: number }).port;
const origin = `http://127.0.0.1:${port}`;
const slugs = Array.from({ length: CHECKS }, (_, i) => `svc-${String(i).padStart(3, '0')}`);
const catalog = loopbackCatalog(slugs.map((slug) => ({ slug, url: `${origin}/${slug}/cancel` })));
// The default level, as the service logs; to a file, not this process's stdout.
const logger = createLogger('info', pino.destination({ dest: join(dir, 'linkcheck.log'), sync: false }));

async function linkChecks(engine: 'pglite' | 'postgres') {
  const pg = engine === 'postgres' ? await createTestDatabase() : null;
  const config = loadConfig({
    DATA_DIR: join(dir, `lc-${engine}`),
    DATABASE_URL: pg?.url ?? '',
    OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${port}`,
  });
  const db = await openStorage(config);
  await syncCatalog(db, catalog);
  const runtime = await createRuntime({ config, db, catalog, logger });
  await runtime.queue.open();
  await fetch(`${origin}/_stats`);
  try {
    const started = performance.now();
    await Promise.all(slugs.map((slug) => runtime.queue.enqueue(slug)));
    const enqueuedMs = performance.now() - started;
    let total = 0;
    for (;;) {
      const { rows } = await db.query<{ n: number }>('select count(*)::int as n from link_checks');
      if (rows[0]!.n >= CHECKS) {
        total = performance.now() - started;
        break;
      }
      if (performance.now() - started > 400_000) throw new Error(`${engine}: only ${rows[0]!.n} checks after 400 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const outcomes = await db.query<{ outcome: string; n: number }>(
      'select outcome, count(*)::int as n from link_checks group by outcome',
    );
    const served = (await (await fetch(`${origin}/_stats`)).json()) as { requests: number; peak: number };
    const concurrency = DEFAULT_CONCURRENCY[engine];
    const ideal = (CHECKS * DELAY) / concurrency;
    const ratio = round(total / ideal, 3);
    return {
      concurrency,
      polling_interval_s: DEFAULT_TIMING.pollingIntervalSeconds,
      enqueue_ms: Math.round(enqueuedMs),
      total_ms: Math.round(total),
      ideal_ms: ideal,
      ratio,
      target: '≤ 1.3',
      pass: ratio <= 1.3,
      outcomes: Object.fromEntries(outcomes.rows.map((r) => [r.outcome, r.n])),
      target_requests: served.requests,
      peak_in_flight: served.peak,
    };
  } finally {
    await runtime.close();
    await db.close();
    await pg?.drop();
  }
}

const linkCheck = { pglite: await linkChecks('pglite'), postgres: await linkChecks('postgres') };
target.kill('SIGTERM');
rmSync(dir, { recursive: true, force: true });

const out = {
  bench: 'guidance',
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  machine_load: { at_start: loadAtStart, at_end: machineLoad() },
  setup:
    `optout: node src/main.ts, embedded PGlite, default LOG_LEVEL (info), log to a file, TRUST_PROXY=true; every request has its own ` +
    `X-Forwarded-For (the guide limit is 20/min per client); autocannon in this process, ${CONNECTIONS} connections, ` +
    `${SECONDS} s per endpoint in 4 interleaved slices after a warm-up; guide = offline template writer`,
  endpoints,
  rss_mib_after_load: rss,
  link_check: {
    checks: CHECKS,
    target_delay_ms: DELAY,
    measured: 'first enqueue → 100th link_checks row',
    ...linkCheck,
  },
  pass: linkCheck.pglite.pass && linkCheck.postgres.pass,
};
process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
process.exitCode = out.pass ? 0 : 1;
