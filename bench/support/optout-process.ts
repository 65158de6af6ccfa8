/**
 * The real service as a process for benchmarks (`node src/main.js`, as `npm start` runs it), plus the little
 * plumbing the API benchmarks share: a free port, waiting for /healthz, the process's RSS
 * and the "listening" log line with its start-up phases.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { SERVICE_NODE_FLAGS } from './node-flags.ts';

// the entry `npm start` runs (src/main.js: the compile cache first, then main.ts)
const MAIN = resolve(import.meta.dirname, '../../src/main.js');

export interface OptoutProcess {
  child: ChildProcess;
  pid: number;
  url: string;
  /** ms from spawn until /healthz answered 200 */
  readyMs: number;
  /** performance.now() of the bench process when /healthz answered 200 */
  readyAt: number;
  /** the "optout is listening" log line, when LOG_LEVEL lets it through */
  listening: Record<string, unknown> | null;
  /**
   * ms from the process's start until its link-check queue was open (the "link-check queue open"
   * line; the queue opens once the server listens), or null when the line did not come within 5 s
   */
  queueOpenMs(): Promise<number | null>;
  /** the file the service's stdout (its log) goes to */
  logFile: string;
  stderr: string[];
  stop(): Promise<number | null>;
}

/** A benchmark that fails half-way must not leave its servers running. */
export function killOnExit(child: ChildProcess): ChildProcess {
  const kill = () => {
    if (child.exitCode === null) child.kill('SIGTERM');
  };
  process.on('exit', kill);
  child.on('exit', () => process.off('exit', kill));
  return child;
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/**
 * Starts optout as `npm start` does (the same Node flags, the environment given and nothing
 * else), its stdout appended to `logFile` the way a deployment writes its log to a file or
 * journal: a pipe into this process would make the bench read every log line on the CPU that
 * drives the load. Readiness is the first 200 from /healthz, polled every 5 ms, at any log level.
 */
export async function startOptout(
  env: Record<string, string>,
  opts: { logFile: string; timeoutMs?: number },
): Promise<OptoutProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const out = openSync(opts.logFile, 'a');
  const logStart = statSync(opts.logFile).size;
  const started = performance.now();
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, MAIN], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', out, 'pipe'],
  });
  closeSync(out);
  killOnExit(child);
  const stderr: string[] = [];
  child.stderr!.on('data', (d) => stderr.push(String(d)));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const url = `http://127.0.0.1:${port}`;
  let up = true;
  const healthy = async () => {
    while (up) {
      try {
        if ((await fetch(`${url}/healthz`)).ok) return;
      } catch {}
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_, rej) => {
    timer = setTimeout(() => rej(new Error(`optout did not start: ${stderr.join('')}`)), opts.timeoutMs ?? 60_000);
    void exited.then((code) => rej(new Error(`optout exited with ${code}: ${stderr.join('')}`)));
  });
  try {
    await Promise.race([healthy(), failed]);
  } finally {
    up = false;
    clearTimeout(timer);
  }
  const readyAt = performance.now();
  const readyMs = readyAt - started;
  // The line is written before /healthz can answer; give an asynchronous log write a moment.
  let listening: Record<string, unknown> | null = null;
  for (let i = 0; i < 20 && !listening; i++) {
    const line = readFileSync(opts.logFile, 'utf8')
      .slice(logStart)
      .split('\n')
      .find((l) => l.includes('optout is listening'));
    if (line) listening = JSON.parse(line) as Record<string, unknown>;
    else await new Promise((r) => setTimeout(r, 25));
  }
  return {
    child,
    pid: child.pid!,
    url,
    readyMs,
    readyAt,
    listening,
    async queueOpenMs() {
      for (let i = 0; i < 200; i++) {
        const line = readFileSync(opts.logFile, 'utf8')
          .slice(logStart)
          .split('\n')
          .find((l) => l.includes('link-check queue open'));
        if (line) return (JSON.parse(line) as { ms_since_start: number }).ms_since_start;
        await new Promise((r) => setTimeout(r, 25));
      }
      return null;
    },
    logFile: opts.logFile,
    stderr,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/**
 * How busy the machine was (other processes skew every figure on 2 cores): the 1-minute load
 * average and, where the kernel has it, the share of the last 10 s some task waited for a CPU.
 */
export function machineLoad(): { loadavg_1m: number; cpu_pressure_10s_pct: number | null } {
  let pressure: number | null = null;
  try {
    pressure = Number(/some avg10=([\d.]+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1] ?? Number.NaN);
  } catch {}
  return { loadavg_1m: round(loadavg()[0]!, 2), cpu_pressure_10s_pct: pressure };
}

/** Resident set size of a process now (VmRSS) or at its peak so far (VmHWM), in MiB, from /proc/<pid>/status (Linux). */
export function rssMiB(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(status)?.[1] ?? Number.NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

/** Peak resident memory (VmHWM) of a process so far, in MiB. */
export const peakMiB = (pid: number) => rssMiB(pid, 'VmHWM');

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
