/**
 * The link-check job queue on pg-boss, in the same database as everything else (PGlite
 * through pg-boss's adapter, or PostgreSQL, where SKIP LOCKED hands each job to exactly
 * one worker across instances). Policy `exclusive` keyed by slug: while a check of a
 * service is queued or running, a new request joins it instead of queueing another.
 * Jobs live in the database, so a crash mid-check is survived: the heartbeat lapses,
 * the supervisor retries the job, and a restarted worker completes it.
 *
 * Checks are network-bound (a page takes ~0.1–10 s to answer), so a process runs several
 * at once: `concurrency` pg-boss workers, each holding one job. A new job wakes idle workers
 * through LISTEN/NOTIFY (both backends support it), and a worker that has just finished a
 * job fetches the next one at once; polling (`pollingIntervalSeconds`) remains the backstop
 * for what no notification announces, such as a retry coming due.
 */
import { fromPglite, PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { Db } from '../storage/index.ts';

export const QUEUE = 'link-check';

export interface QueueTiming {
  /** how often idle workers look for jobs */
  pollingIntervalSeconds: number;
  /** a worker that stops beating for this long is presumed dead (pg-boss minimum 10) */
  heartbeatSeconds: number;
  /** how often the supervisor looks for dead jobs */
  superviseIntervalSeconds: number;
}

/**
 * Link checks one process runs at once: PGlite serialises every query through
 * one connection, so fewer there; the checks themselves mostly wait on the network.
 */
export const DEFAULT_CONCURRENCY = { pglite: 4, postgres: 8 } as const;

export const DEFAULT_TIMING: QueueTiming = {
  pollingIntervalSeconds: 2,
  heartbeatSeconds: 30,
  superviseIntervalSeconds: 60,
};

export interface LinkCheckJob {
  slug: string;
}

export interface JobQueue {
  /** queues a check; false when one for that slug is already pending (the request joins it) */
  enqueue(slug: string): Promise<{ jobId: string | null; joined: boolean }>;
  /** starts this process's workers, DEFAULT_CONCURRENCY for the backend */
  work(handler: (job: { id: string; data: LinkCheckJob }) => Promise<void>): Promise<void>;
  stop(): Promise<void>;
  boss: PgBoss;
}

export async function openQueue(db: Db, logger: Logger, timing: QueueTiming = DEFAULT_TIMING): Promise<JobQueue> {
  const common = {
    schema: 'pgboss',
    superviseIntervalSeconds: timing.superviseIntervalSeconds,
    monitorIntervalSeconds: timing.superviseIntervalSeconds,
    maintenanceIntervalSeconds: Math.max(60, timing.superviseIntervalSeconds),
    schedule: false,
    useListenNotify: true,
  };
  const boss = db.lite
    ? new PgBoss({ ...common, db: fromPglite(db.lite), backend: 'pglite' })
    : new PgBoss({ ...common, connectionString: db.url, max: 4 });
  boss.on('error', (err) => logger.error({ err }, 'job queue error'));
  await boss.start();
  await boss
    .createQueue(QUEUE, {
      policy: 'exclusive',
      retryLimit: 3,
      retryDelay: 5,
      heartbeatSeconds: timing.heartbeatSeconds,
      expireInSeconds: 120,
      retentionSeconds: 86_400,
      notify: true,
    })
    .catch((err: Error) => {
      // Another instance created it first: fine.
      if (!/already exists/i.test(err.message)) throw err;
    });
  // createQueue leaves an existing queue as it was: a queue made before notify was used gets it here.
  if (!(await boss.getQueue(QUEUE))?.notify) await boss.updateQueue(QUEUE, { notify: true });
  let stopped = false;
  return {
    boss,
    async enqueue(slug) {
      const jobId = await boss.send(QUEUE, { slug } satisfies LinkCheckJob, { singletonKey: slug });
      return { jobId, joined: jobId === null };
    },
    async work(handler) {
      const concurrency = db.lite ? DEFAULT_CONCURRENCY.pglite : DEFAULT_CONCURRENCY.postgres;
      // One registration per worker, so each knows its own id: a worker that has just run a
      // job wakes itself to fetch the next one instead of sleeping out the polling interval
      // (a backlog drains at `concurrency` jobs per check time); an empty fetch puts it back
      // to waiting. New jobs wake every worker through NOTIFY. What no notification announces
      // (a retry coming due) is found by the first worker, which keeps polling every
      // `pollingIntervalSeconds`; the others poll only every 30 s (pg-boss's default while
      // NOTIFY works), so an idle process queries as often as with one worker — on PGlite each
      // poll briefly holds the event loop. Without NOTIFY every worker polls at the usual interval.
      for (let i = 0; i < concurrency; i++) {
        let workerId = '';
        const options = {
          pollingIntervalSeconds: timing.pollingIntervalSeconds,
          notifyPollingIntervalSeconds:
            i === 0 ? timing.pollingIntervalSeconds : Math.max(30, timing.pollingIntervalSeconds),
          batchSize: 1,
        };
        workerId = await boss.work<LinkCheckJob>(QUEUE, options, async (jobs) => {
          for (const job of jobs) await handler(job);
          if (jobs.length) boss.notifyWorker(workerId);
        });
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await boss.stop({ graceful: true, timeout: 5000 });
    },
  };
}
