/**
 * Gives back the memory a start used and no longer needs. Starting leaves V8's young generation
 * at its largest and the old generation holding what loading ~1,000 modules and the catalog threw
 * away; V8 keeps both while the process is idle, because nothing makes it collect. One full,
 * memory-reducing collection after the start (main.ts) took a start on an existing data directory
 * from ~185 MiB resident to ~160 MiB, for one pause of ~90 ms (docs/benchmarks.md, bench/memory).
 *
 * It needs the `gc` function that `--expose-gc` gives (package.json config.nodeFlags, which
 * `npm start` and deploy/start.sh pass); without it nothing is done.
 */
import { readFileSync } from 'node:fs';

export interface Settled {
  rss_before_mib: number;
  rss_after_mib: number;
  ms: number;
}

/** The process's resident set in MiB (VmRSS), or NaN where /proc is not there. */
export function residentMiB(): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kb ? Math.round((Number(kb) / 1024) * 10) / 10 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Collects once, synchronously; null when `gc` is not there (no --expose-gc). */
export function settleMemory(gc: NodeJS.GCFunction | undefined = globalThis.gc): Settled | null {
  if (!gc) return null;
  const before = residentMiB();
  const started = performance.now();
  // "last-resort" is V8's memory-reducing collection: it also shrinks the young generation
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return { rss_before_mib: before, rss_after_mib: residentMiB(), ms: Math.round(performance.now() - started) };
}
