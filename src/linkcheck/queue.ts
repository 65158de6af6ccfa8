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
 *
 * Re-verification on a schedule: pg-boss's cron keeps one schedule row per name in the shared
 * database (every instance upserts the same row at start) and files each occurrence under a
 * singleton key, so however many instances run the cron pass, one sweep job is created per
 * occurrence. The sweep queues a check of every service; the checks then spread over the
 * workers of every instance like any other job.
 */
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { Db } from '../storage/index.ts';
import { WEEKLY_CRON } from './schedule.ts';

export const QUEUE = 'link-check';
/** The scheduled job that queues a check of every service. */
export const SWEEP_QUEUE = 'link-check-sweep';
const JOB_EXPIRE_SECONDS = 900;

export interface QueueTiming {
  /** how often idle workers look for jobs */
  pollingIntervalSeconds: number;
  /** a worker that stops beating for this long is presumed dead (pg-boss minimum 10) */
  heartbeatSeconds: number;
  /** how often the supervisor looks for dead jobs */
  superviseIntervalSeconds: number;
  /** how often an instance looks for schedules that came due (pg-boss default 30, range 1–45) */
  cronMonitorIntervalSeconds?: number;
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
  /**
   * starts this process's workers, DEFAULT_CONCURRENCY for the backend, and one for the sweep,
   * which is handed each scheduled occurrence
   */
  work(handler: (job: { id: string; data: LinkCheckJob }) => Promise<void>, sweep?: () => Promise<void>): Promise<void>;
  /** queues a sweep now, as the schedule does (joins one that is pending) */
  sweepNow(): Promise<string | null>;
  stop(): Promise<void>;
  boss: PgBoss;
}

export interface QueueOptions {
  timing?: QueueTiming;
  /** cron expression (UTC) of the sweep; null: no sweeps, and none left scheduled */
  schedule?: string | null;
}

export async function openQueue(db: Db, logger: Logger, opts: QueueOptions = {}): Promise<JobQueue> {
  const timing = opts.timing ?? DEFAULT_TIMING;
  const cron = opts.schedule === undefined ? WEEKLY_CRON : opts.schedule;
  const common = {
    schema: 'pgboss',
    superviseIntervalSeconds: timing.superviseIntervalSeconds,
    monitorIntervalSeconds: timing.superviseIntervalSeconds,
    maintenanceIntervalSeconds: Math.max(60, timing.superviseIntervalSeconds),
    // the cron pass (and its clock-skew check) runs only where a sweep is scheduled
    schedule: cron !== null,
    ...(timing.cronMonitorIntervalSeconds
      ? { cronMonitorIntervalSeconds: timing.cronMonitorIntervalSeconds, cronWorkerIntervalSeconds: 1 }
      : {}),
    useListenNotify: true,
  };
  // loaded here, not with the module: the queue opens after the server listens (deferred.ts)
  const { fromPglite, PgBoss } = await import('pg-boss');
  const boss = db.lite
    ? new PgBoss({ ...common, db: fromPglite(db.lite), backend: 'pglite' })
    : new PgBoss({ ...common, connectionString: db.url, max: 4 });
  boss.on('error', (err) => logger.error({ err }, 'job queue error'));
  try {
    await boss.start();
    await prepare(boss, cron, timing);
  } catch (err) {
    // a half-opened queue must not keep polling; the caller may open another
    await boss.stop({ graceful: false }).catch(() => {});
    throw err;
  }
  let stopped = false;
  return {
    boss,
    async enqueue(slug) {
      const jobId = await boss.send(QUEUE, { slug } satisfies LinkCheckJob, { singletonKey: slug });
      return { jobId, joined: jobId === null };
    },
    async sweepNow() {
      return boss.send(SWEEP_QUEUE, {});
    },
    async work(handler, sweep) {
      if (sweep) {
        // A sweep comes due once a week: polling at the cron pass's pace is soon enough.
        await boss.work(SWEEP_QUEUE, { pollingIntervalSeconds: timing.cronMonitorIntervalSeconds ?? 30 }, () =>
          sweep(),
        );
      }
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

/** The queues, their settings and the sweep's schedule, as this build wants them. */
async function prepare(boss: PgBoss, cron: string | null, timing: QueueTiming): Promise<void> {
  await boss
    .createQueue(QUEUE, {
      policy: 'exclusive',
      retryLimit: 3,
      retryDelay: 5,
      heartbeatSeconds: timing.heartbeatSeconds,
      // a job checks every link of one service in turn, each within the check's own timeout
      expireInSeconds: JOB_EXPIRE_SECONDS,
      retentionSeconds: 86_400,
      notify: true,
    })
    .catch((err: Error) => {
      // Another instance created it first: fine.
      if (!/already exists/i.test(err.message)) throw err;
    });
  // createQueue leaves an existing queue as it was: a queue made before notify was used gets it here.
  const existing = await boss.getQueue(QUEUE);
  if (!existing?.notify || existing.expireInSeconds !== JOB_EXPIRE_SECONDS) {
    await boss.updateQueue(QUEUE, { notify: true, expireInSeconds: JOB_EXPIRE_SECONDS });
  }
  await boss
    .createQueue(SWEEP_QUEUE, {
      // one sweep at a time: a sweep requested while one is queued or running joins it
      policy: 'exclusive',
      retryLimit: 2,
      retryDelay: 60,
      expireInSeconds: 600,
      retentionSeconds: 30 * 86_400,
    })
    .catch((err: Error) => {
      if (!/already exists/i.test(err.message)) throw err;
    });
  // Every instance writes the same row (an upsert by name), so the schedule exists once.
  // `missed: 'once'`: a deployment that was down at the hour still sweeps that week.
  if (cron !== null) await boss.schedule(SWEEP_QUEUE, cron, {}, { tz: 'UTC', missed: 'once' });
  else await boss.unschedule(SWEEP_QUEUE);
}
