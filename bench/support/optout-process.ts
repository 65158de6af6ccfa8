/**
 * The real service as a process for benchmarks (`node src/main.ts`), plus the little
 * plumbing the API benchmarks share: a free port, waiting for /healthz, the process's RSS
 * and the "listening" log line with its start-up phases.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { SERVICE_NODE_FLAGS } from './node-flags.ts';

const MAIN = resolve(import.meta.dirname, '../../src/main.ts');

export interface OptoutProcess {
  child: ChildProcess;
  pid: number;
  url: string;
  /** ms from spawn until the process answered (listening line or /healthz) */
  readyMs: number;
  /** the "optout is listening" log line, when LOG_LEVEL lets it through */
  listening: Record<string, unknown> | null;
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
 * Starts optout. With LOG_LEVEL info (or lower) readiness is the "optout is listening" log
 * line, as in test/helpers/server-process.ts; above info that line is not written, so the
 * port is chosen here and readiness is the first 200 from /healthz.
 */
export async function startOptout(env: Record<string, string>, timeoutMs = 60_000): Promise<OptoutProcess> {
  const quiet = ['warn', 'error', 'fatal', 'silent'].includes(env.LOG_LEVEL ?? 'info');
  const port = quiet ? await freePort() : 0;
  const started = performance.now();
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, MAIN], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killOnExit(child);
  const stderr: string[] = [];
  child.stderr!.on('data', (d) => stderr.push(String(d)));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  let listening: Record<string, unknown> | null = null;
  const listened = new Promise<void>((res) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!listening && line.includes('optout is listening')) {
        listening = JSON.parse(line) as Record<string, unknown>;
        res();
      }
    });
  });
  const healthy = async (url: string) => {
    for (;;) {
      try {
        if ((await fetch(`${url}/healthz`)).ok) return;
      } catch {}
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_, rej) => {
    timer = setTimeout(() => rej(new Error(`optout did not start: ${stderr.join('')}`)), timeoutMs);
    void exited.then((code) => rej(new Error(`optout exited with ${code}: ${stderr.join('')}`)));
  });
  const fixedUrl = `http://127.0.0.1:${port}`;
  await Promise.race([quiet ? healthy(fixedUrl) : listened, failed]).finally(() => clearTimeout(timer));
  const readyMs = performance.now() - started;
  const url = quiet ? fixedUrl : String((listening as Record<string, unknown> | null)?.address);
  return {
    child,
    pid: child.pid!,
    url,
    readyMs,
    listening,
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

/** Resident set size of a process, in MiB, from /proc/<pid>/status (Linux). */
export function rssMiB(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
