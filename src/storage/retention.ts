/**
 * Deletes rows once they serve no purpose (the retention the /privacy page states): each
 * owner supplies its purge (src/quota/ the finished days' scan counts, src/http/ the expired
 * rate-limit counters); this runs them all at start and then every hour. A purge that fails
 * is logged and tried again at the next run: a row kept an hour longer harms nobody.
 */
import type { Logger } from 'pino';

export interface Purge {
  name: string;
  /** deletes what `now` makes useless; returns the rows deleted */
  run(now: Date): Promise<number>;
}

export const RETENTION_INTERVAL_MS = 3_600_000;

export interface Retention {
  /** runs every purge once, now */
  runNow(now?: Date): Promise<void>;
  stop(): Promise<void>;
}

export function startRetention(purges: Purge[], logger: Logger, everyMs = RETENTION_INTERVAL_MS): Retention {
  let running: Promise<void> = Promise.resolve();
  const runNow = (now = new Date()) => {
    running = running.then(async () => {
      for (const p of purges) {
        try {
          const deleted = await p.run(now);
          if (deleted) logger.info({ purge: p.name, deleted }, 'retention: rows deleted');
        } catch (err) {
          logger.warn({ err, purge: p.name }, 'retention: purge failed; trying again at the next run');
        }
      }
    });
    return running;
  };
  void runNow();
  const timer = setInterval(() => void runNow(), everyMs);
  timer.unref();
  return {
    runNow,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
