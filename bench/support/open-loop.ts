/**
 * A fixed request rate as an open loop: request i is due at start + i / rate and is sent then,
 * whether or not earlier ones have been answered (up to `connections` at once, undici's Pool;
 * later ones queue in the pool, as they would at a server that cannot keep up). Its latency runs
 * from when it was due, not from when a connection was free, so a slow answer that holds up the
 * ones behind it is counted in each of them (no coordinated omission). autocannon's rate mode
 * sends each connection's share of a second back to back at the start of the second and times
 * from the send, which measures something else (bench/api.ts).
 */
import { Pool } from 'undici';

export interface OpenLoopResult {
  rate: number;
  requests: number;
  /** requests answered per second of the run */
  req_per_s: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** how late the generator itself sent the 99th percentile request (its own floor) */
  send_lag_p99_ms: number;
}

const pct = (sorted: Float64Array, p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
const ms = (n: number) => Math.round(n * 100) / 100;

export async function openLoop(
  url: string,
  paths: string[],
  o: { rate: number; seconds: number; connections: number },
): Promise<OpenLoopResult> {
  const pool = new Pool(url, { connections: o.connections, pipelining: 1 });
  const total = Math.round(o.rate * o.seconds);
  const interval = 1000 / o.rate;
  const latencies = new Float64Array(total);
  const lags = new Float64Array(total);
  const answered: Promise<void>[] = [];
  let failed = 0;
  const start = performance.now();
  let i = 0;
  while (i < total) {
    const wait = start + i * interval - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const now = performance.now();
    for (; i < total && start + i * interval <= now; i++) {
      const k = i;
      const due = start + k * interval;
      lags[k] = now - due;
      answered.push(
        pool.request({ method: 'GET', path: paths[k % paths.length]! }).then(
          async (res) => {
            await res.body.dump();
            if (res.statusCode !== 200) failed++;
            latencies[k] = performance.now() - due;
          },
          () => {
            failed++;
          },
        ),
      );
    }
  }
  await Promise.all(answered);
  const seconds = (performance.now() - start) / 1000;
  await pool.close();
  if (failed) throw new Error(`${url}: ${failed} failed requests at ${o.rate}/s`);
  latencies.sort();
  lags.sort();
  return {
    rate: o.rate,
    requests: total,
    req_per_s: Math.round(total / seconds),
    p50_ms: ms(pct(latencies, 0.5)),
    p99_ms: ms(pct(latencies, 0.99)),
    max_ms: ms(latencies[total - 1]!),
    send_lag_p99_ms: ms(pct(lags, 0.99)),
  };
}
