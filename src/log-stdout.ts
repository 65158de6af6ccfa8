/**
 * The service log's way out: stdout, written in batches. A line waits at most FLUSH_MS (or until
 * 64 KB are pending) and leaves with every line logged meanwhile in one write. Under load that is
 * one write for a few hundred access lines instead of one per event-loop turn (a turn answers one
 * to a few requests on 32 connections): logging at the default level cost 10–17 µs of CPU per
 * request against LOG_LEVEL=warn, nearly all of it that write (bench/api, docs/benchmarks.md).
 * At rest a line is out within FLUSH_MS.
 *
 * The write is synchronous, so nothing piles up in memory, and the lines still pending are
 * written on 'exit' (process.exit, SIGTERM/SIGINT through main.ts, an uncaught exception); a
 * signal that kills the process outright (SIGKILL, or one with no handler) loses at most FLUSH_MS
 * of lines. A partial write goes on from the first byte not written; a full non-blocking pipe
 * (EAGAIN) is waited for. This replaces pino's SonicBoom here, which after every write copied all
 * it had written into a new Buffer only to find the rest (a third of a microsecond per request).
 */
import { writeSync } from 'node:fs';
import type { DestinationStream } from 'pino';

const FLUSH_MS = 10;
const BATCH_CHARS = 64 * 1024;
/** how long to wait for a full non-blocking pipe (EAGAIN) before trying again */
const FULL_PIPE_WAIT_MS = 5;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes all of `text` to `fd`. Returns false when the descriptor refuses for good (EPIPE, EBADF:
 * nobody reads the log any more); those lines are dropped rather than stopping the service.
 */
export function writeAll(fd: number, text: string): boolean {
  let rest: string | Buffer = text;
  for (;;) {
    let written: number;
    try {
      written = typeof rest === 'string' ? writeSync(fd, rest, null, 'utf8') : writeSync(fd, rest);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return false;
      Atomics.wait(sleeper, 0, 0, FULL_PIPE_WAIT_MS);
      continue;
    }
    if (typeof rest === 'string') {
      // measured, not copied: the whole batch in one write is the common case
      const total = Buffer.byteLength(rest);
      if (written >= total) return true;
      rest = Buffer.from(rest).subarray(written);
    } else {
      if (written >= rest.length) return true;
      rest = rest.subarray(written);
    }
  }
}

export function stdoutBatched(fd = 1): DestinationStream {
  let pending = '';
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
    if (!pending) return;
    const lines = pending;
    pending = '';
    writeAll(fd, lines);
  };
  process.on('exit', flush);
  return {
    write(line: string) {
      pending += line;
      if (pending.length >= BATCH_CHARS) flush();
      else if (timer === null) {
        // unref'd: a pending line never keeps the process alive; 'exit' writes it
        timer = setTimeout(flush, FLUSH_MS);
        timer.unref();
      }
    },
  };
}
