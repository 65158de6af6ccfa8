/**
 * The link-check queue as the rest of the service holds it before it is open. Opening it — loading
 * pg-boss and its cron parser, checking the queue rows, upserting the schedule, registering the
 * workers — took ~100 ms of every start before the server could listen; main.ts now opens it right
 * after the server listens (docs/benchmarks.md, "First start"). A check requested before that is
 * queued as usual once the queue is open (the request opens it if nothing has yet). An opening
 * that fails (the database is down) is forgotten: the call fails with the reason, and the next
 * call, or main.ts's retry, opens it again.
 */
import type { JobQueue } from './queue.ts';

export interface LinkCheckQueue extends Pick<JobQueue, 'enqueue' | 'sweepNow'> {
  /** opens the queue and registers this process's workers, once; settles when that is done */
  open(): Promise<void>;
  /** stops the workers of an open queue; nothing to do for one never opened */
  stop(): Promise<void>;
}

export function queueWhenOpen(openQueue: () => Promise<JobQueue>): LinkCheckQueue {
  let opening: Promise<JobQueue> | undefined;
  const queue = () => {
    opening ??= openQueue().catch((err: unknown) => {
      opening = undefined;
      throw err;
    });
    return opening;
  };
  return {
    open: async () => {
      await queue();
    },
    enqueue: async (slug) => (await queue()).enqueue(slug),
    sweepNow: async () => (await queue()).sweepNow(),
    async stop() {
      const open = await opening?.catch(() => null);
      await open?.stop();
    },
  };
}
