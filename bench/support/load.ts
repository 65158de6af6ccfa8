/**
 * autocannon runs for the API benchmarks. Throughput comparisons are interleaved: each target
 * gets `rounds` slices of the total time, in ABBA order, so that whatever else the machine is
 * doing falls on all targets alike; latency percentiles are computed from every response of
 * all slices.
 */
import { readFileSync } from 'node:fs';
import autocannon, { type RequestSpec } from 'autocannon';

/**
 * CPU time a process has used, user + system, in ms (/proc/<pid>/stat fields 14 and 15, in
 * clock ticks of 10 ms on Linux). The server's CPU time per request depends far less on what else
 * the machine runs than its requests per second do: on a shared machine it is the steadier figure.
 */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export interface LoadResult {
  requests: number;
  req_per_s: number;
  /** the server's CPU time per response, when its pid was given */
  cpu_us_per_req?: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

export interface LoadOptions {
  connections: number;
  /** seconds */
  duration: number;
  overallRate?: number;
  /** autocannon's coordinated-omission correction (only with overallRate) */
  corrected?: boolean;
}

const percentile = (sorted: Float64Array, p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : Number.NaN;
const ms = (n: number) => Math.round(n * 100) / 100;

/** One run; latencies (ms) of every response are appended to `latencies`. */
async function slice(url: string, requests: RequestSpec[], o: LoadOptions, latencies: number[]) {
  const run = autocannon({
    url,
    connections: o.connections,
    duration: o.duration,
    requests,
    ...(o.overallRate ? { overallRate: o.overallRate, ignoreCoordinatedOmission: !o.corrected } : {}),
  });
  run.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
    latencies.push(responseTime);
  });
  const r = await run;
  const bad = r.non2xx + r.errors + r.timeouts;
  if (bad) throw new Error(`${url}: ${bad} failed requests ${JSON.stringify(r.statusCodeStats)}`);
  return r;
}

function summarize(
  requests: number,
  seconds: number,
  latencies: number[],
  corrected?: { p50: number; p99: number; max: number },
) {
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests,
    req_per_s: Math.round(requests / seconds),
    p50_ms: corrected?.p50 ?? ms(percentile(sorted, 50)),
    p99_ms: corrected?.p99 ?? ms(percentile(sorted, 99)),
    max_ms: corrected?.max ?? ms(sorted.at(-1) ?? Number.NaN),
  };
}

/** One target, one run (e.g. a fixed rate). With `corrected`, autocannon's own percentiles. */
export async function load(url: string, requests: RequestSpec[], o: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const r = await slice(url, requests, o, latencies);
  const own = o.corrected ? { p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max } : undefined;
  return summarize(r.requests.total, r.duration, latencies, own);
}

/** Several targets at full speed, interleaved in `rounds` slices of duration / rounds each. */
export async function compare(
  targets: Record<string, { url: string; requests: RequestSpec[]; pid?: number; pids?: number[] }>,
  o: LoadOptions & { rounds: number },
): Promise<{ results: Record<string, LoadResult>; per_round_req_per_s: Record<string, number[]> }> {
  const names = Object.keys(targets);
  const acc = Object.fromEntries(
    names.map((n) => [n, { requests: 0, seconds: 0, cpuMs: 0, latencies: [] as number[] }]),
  );
  const perRound: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < o.rounds; round++) {
    for (const name of round % 2 ? [...names].reverse() : names) {
      const t = targets[name]!;
      // `pids`: the CPU time of several processes together (e.g. every instance behind a proxy)
      const pids = t.pids ?? (t.pid ? [t.pid] : []);
      const cpu = () => pids.reduce((sum, p) => sum + cpuMs(p), 0);
      const cpu0 = cpu();
      const r = await slice(t.url, t.requests, { ...o, duration: o.duration / o.rounds }, acc[name]!.latencies);
      acc[name]!.cpuMs += cpu() - cpu0;
      acc[name]!.requests += r.requests.total;
      acc[name]!.seconds += r.duration;
      perRound[name]!.push(Math.round(r.requests.total / r.duration));
    }
  }
  const results = Object.fromEntries(
    names.map((n) => {
      const a = acc[n]!;
      const summary: LoadResult = summarize(a.requests, a.seconds, a.latencies);
      if (targets[n]!.pid || targets[n]!.pids)
        summary.cpu_us_per_req = Math.round((a.cpuMs * 1000 * 100) / a.requests) / 100;
      return [n, summary];
    }),
  );
  return { results, per_round_req_per_s: perRound };
}
