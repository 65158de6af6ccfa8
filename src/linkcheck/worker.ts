/**
 * Runs one link-check job: checks every link of the service (service-check.ts) and records
 * each result. The catalog is read from this process's memory, so a job for a service that
 * has since left the catalog does nothing.
 */
import type { Logger } from 'pino';
import type { Catalog } from '../catalog/load.ts';
import type { OutboundGuard } from '../outbound/guard.ts';
import type { Db } from '../storage/index.ts';
import type { JobQueue } from './queue.ts';
import { checkService } from './service-check.ts';

export interface WorkerDeps {
  db: Db;
  catalog: Catalog;
  guard: OutboundGuard;
  logger: Logger;
  userAgent: string;
  /** called after a check is recorded (the catalog API's state snapshot is refreshed) */
  onRecorded?: () => void;
}

export function linkCheckHandler(deps: WorkerDeps) {
  return async (job: { id: string; data: { slug: string } }): Promise<void> => {
    const entry = deps.catalog.bySlug.get(job.data.slug);
    if (!entry) {
      deps.logger.warn({ slug: job.data.slug }, 'link check for a service no longer in the catalog');
      return;
    }
    const slug = entry.record.slug;
    const results = await checkService(deps, entry.record, job.id, (r) => {
      deps.onRecorded?.();
      deps.logger.info({ slug, url: r.url, outcome: r.outcome, http_status: r.http_status }, 'link checked');
    });
    deps.logger.info({ slug, links: results.length }, 'service links checked');
  };
}

/** The scheduled sweep: queues a check of every service (a pending check of one joins). */
export function sweepHandler(deps: { catalog: Catalog; queue: Pick<JobQueue, 'enqueue'>; logger: Logger }) {
  return async (): Promise<void> => {
    let queued = 0;
    for (const e of deps.catalog.entries) if (!(await deps.queue.enqueue(e.record.slug)).joined) queued++;
    deps.logger.info({ services: deps.catalog.entries.length, queued }, 'link-check sweep queued');
  };
}
