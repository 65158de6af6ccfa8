/**
 * bench/scale: the reference deployment (docs/deploy.md) under load on this machine — nginx
 * running deploy/nginx.conf (test/helpers/nginx.ts: ports and paths replaced) in front of 1, 2
 * and 3 instances on one PostgreSQL (the tests' private server, test/helpers/pg-server.ts). Each
 * instance runs as `npm start` does (its Node flags, the default log level, the log to a file).
 * The baseline in the same run is one instance through nginx; one instance without nginx shows
 * what the proxy costs. The targets are measured interleaved (bench/support/load.ts: ABBA
 * slices), so whatever else the machine does falls on all of them alike.
 *
 * Then what each kind of request costs the shared database: the statements an instance sends
 * per request (each one round trip), counted in PostgreSQL's own log (log_statement = all, set
 * for that part only) over sequential requests to one instance; the job queue's background
 * statements (pgboss.*) are left out. The CPU time of the instances and of nginx per request
 * shows where a core goes, so the figures can be projected to a machine with more cores.
 *
 *   npx node bench/scale.ts [seconds=8] [connections=32]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type Nginx, startNginx } from '../test/helpers/nginx.ts';
import { startPostgres } from '../test/helpers/pg-server.ts';
import { trustTestCa } from '../test/helpers/tls-ca.ts';
import { compare, cpuMs } from './support/load.ts';
import { machineLoad, type OptoutProcess, round, startOptout } from './support/optout-process.ts';

const SECONDS = Number(process.argv[2] ?? 8);
const CONNECTIONS = Number(process.argv[3] ?? 32);
const ROUNDS = 4;
const INSTANCES = 3;

const PATHS = [
  '/api/v1/services?q=netflix',
  '/api/v1/services?q=fit',
  '/api/v1/services/netflix',
  '/api/v1/services/spotify',
  '/api/v1/services/planet-fitness',
  '/api/v1/categories',
];

trustTestCa();
const loadAtStart = machineLoad();
const dir = mkdtempSync(join(tmpdir(), 'optout-bench-scale-'));
const server = await startPostgres();
const instances: OptoutProcess[] = [];
try {
  const env = { DATABASE_URL: server.url, TRUST_PROXY: '127.0.0.1' };
  // one after the other: the first creates the tables, the others find them
  for (let i = 0; i < INSTANCES; i++)
    instances.push(await startOptout(env, { logFile: join(dir, `optout-${i + 1}.log`), timeoutMs: 180_000 }));
  const ports = instances.map((o) => Number(new URL(o.url).port));
  const proxies: Nginx[] = [];
  for (let n = 1; n <= INSTANCES; n++) proxies.push(await startNginx(ports.slice(0, n)));

  const requests = PATHS.map((path) => ({ method: 'GET', path }));
  const pids = instances.map((o) => o.pid);
  const targets = {
    direct_1: { url: instances[0]!.url, requests, pids: pids.slice(0, 1) },
    ...Object.fromEntries(
      proxies.map((p, k) => [`nginx_${k + 1}`, { url: p.origin, requests, pids: pids.slice(0, k + 1) }]),
    ),
  };
  // warm every instance alike (JIT, caches: an instance that has served less runs colder code),
  // then through the widest proxy, then measure
  const warm = (url: string, duration: number) =>
    compare({ warm: { url, requests } }, { connections: CONNECTIONS, duration, rounds: 1 });
  for (const o of instances) await warm(o.url, 3);
  await warm(proxies.at(-1)!.origin, 2);
  // what an idle instance spends anyway (timers, the job queue's polling): on a slow run it is a
  // visible part of the CPU per request, so it is measured and taken out below
  const idle0 = instances.map((o) => cpuMs(o.pid));
  const idleStart = performance.now();
  await new Promise((r) => setTimeout(r, 5000));
  const idleSeconds = (performance.now() - idleStart) / 1000;
  const idleCpuShare = instances.map((o, k) => (cpuMs(o.pid) - idle0[k]!) / 1000 / idleSeconds);
  const cpu0 = instances.map((o) => cpuMs(o.pid));
  const nginxCpu = () => proxies.map((p) => nginxPids(p.dir).reduce((sum, pid) => sum + cpuMs(pid), 0));
  const nginx0 = nginxCpu();
  const { results, per_round_req_per_s } = await compare(targets, {
    connections: CONNECTIONS,
    duration: SECONDS,
    rounds: ROUNDS,
  });
  const cpuSeconds = instances.map((o, k) => round((cpuMs(o.pid) - cpu0[k]!) / 1000, 1));
  const nginx1 = nginxCpu();
  const nginxCost = Object.fromEntries(
    proxies.map((_, k) => [
      `nginx_${k + 1}`,
      round(((nginx1[k]! - nginx0[k]!) * 1000) / results[`nginx_${k + 1}`]!.requests, 1),
    ]),
  );
  const base = results.nginx_1!.req_per_s;
  const throughput = Object.fromEntries(
    Object.entries(results).map(([name, r]) => {
      const serving = targets[name as keyof typeof targets].pids.length;
      const idleShare = idleCpuShare.slice(0, serving).reduce((a, b) => a + b, 0);
      // the instances' CPU per request less what they would have spent idle meanwhile
      const net = r.cpu_us_per_req! - (idleShare * 1e6) / r.req_per_s;
      return [
        name,
        {
          ...r,
          instances_cpu_us_per_req_net_of_idle: round(net, 1),
          ratio_to_nginx_1: round(r.req_per_s / base, 3),
          per_slice_req_per_s: per_round_req_per_s[name],
        },
      ];
    }),
  );

  // what a request costs the database: every statement an instance sends, from PostgreSQL's own
  // log (log_statement = all), the job queue's background statements (pgboss.*) left out
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query("alter system set log_statement = 'all'");
  await admin.query('select pg_reload_conf()');
  await new Promise((r) => setTimeout(r, 500));
  const statements = (log: string) =>
    log.split('\n').filter((l) => /LOG: {2}(statement|execute [^:]*):/.test(l) && !/pgboss/.test(l)).length;
  const one = instances[0]!.url;
  const kinds: Record<string, (i: number) => Promise<Response>> = {
    'GET /api/v1/services?q=…': () => fetch(`${one}/api/v1/services?q=netflix`),
    'GET /api/v1/services/{slug}': () => fetch(`${one}/api/v1/services/netflix`),
    'POST /api/v1/guide (no model; rate-limited)': (i) => post(`${one}/api/v1/guide`, { slug: 'netflix' }, i),
    'GET /readyz': () => fetch(`${one}/readyz`),
  };
  const N = 200;
  const dbCost: Record<string, unknown> = {};
  for (const [kind, send] of Object.entries(kinds)) {
    const before = (await server.logs()).length;
    const started = performance.now();
    const statuses = new Map<number, number>();
    for (let i = 0; i < N; i++) {
      const r = await send(i);
      await r.arrayBuffer();
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    }
    const seconds = (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 300));
    const sent = statements((await server.logs()).slice(before));
    dbCost[kind] = {
      requests: N,
      statuses: Object.fromEntries(statuses),
      seconds: round(seconds, 2),
      statements_per_request: round(sent / N, 3),
    };
  }
  await admin.query('alter system reset log_statement');
  await admin.query('select pg_reload_conf()');
  await admin.end();

  const report = {
    bench: 'scale',
    date: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model,
      node: process.version,
      postgres: server.url.replace(/\/\/[^@]*@/, '//'),
    },
    load_at_start: loadAtStart,
    load_at_end: machineLoad(),
    settings: { seconds_per_target: SECONDS, connections: CONNECTIONS, rounds: ROUNDS, paths: PATHS },
    throughput,
    instance_cpu_seconds_during_run: cpuSeconds,
    idle_instance_cpu_pct: idleCpuShare.map((x) => round(x * 100, 1)),
    nginx_cpu_us_per_req: nginxCost,
    database_cost: dbCost,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  for (const p of proxies) await p.close();
} finally {
  await Promise.all(instances.map((o) => o.stop()));
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}

/** a POST from its own client address (nginx is not in the way here; TRUST_PROXY=127.0.0.1) */
function post(url: string, body: unknown, i: number) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${i % 250}` },
    body: JSON.stringify(body),
  });
}

/** nginx's master (its pid file) and its workers (the master's children, from /proc) */
function nginxPids(dir: string): number[] {
  const master = Number(readFileSync(join(dir, 'nginx.pid'), 'utf8').trim());
  const children = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === master;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [master, ...children];
}
