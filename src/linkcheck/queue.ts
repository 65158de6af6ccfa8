/**
 * The link-check job queue on pg-boss, in the same database as everything else (PGlite
 * through pg-boss's adapter, or PostgreSQL, where SKIP LOCKED hands each job to exactly
 * one worker across instances). Policy `exclusive` keyed by slug: while a check of a
 * service is queued or running, a new request joins it instead of queueing another.
 * Jobs live in the database, so a crash mid-check is survived: the heartbeat lapses,
 * the supervisor retries the job, and a restarted worker completes it.
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
  /** starts a worker in this process */
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
    })
    .catch((err: Error) => {
      // Another instance created it first: fine.
      if (!/already exists/i.test(err.message)) throw err;
    });
  let stopped = false;
  return {
    boss,
    async enqueue(slug) {
      const jobId = await boss.send(QUEUE, { slug } satisfies LinkCheckJob, { singletonKey: slug });
      return { jobId, joined: jobId === null };
    },
    async work(handler) {
      await boss.work<LinkCheckJob>(
        QUEUE,
        { pollingIntervalSeconds: timing.pollingIntervalSeconds, localConcurrency: db.lite ? 1 : 2 },
        async (jobs) => {
          for (const job of jobs) await handler(job);
        },
      );
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await boss.stop({ graceful: true, timeout: 5000 });
    },
  };
}
