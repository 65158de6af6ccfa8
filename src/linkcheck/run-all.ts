/**
 * Checks every link of many services in this process, `concurrency` services at a time, and
 * records each result as the queue's worker does (service-check.ts). `npm run catalog:check`
 * uses it to re-verify the whole catalog on demand; the weekly sweep instead queues one job
 * per service so that the work spreads over every instance.
 */
import { randomUUID } from 'node:crypto';
import type { CatalogEntry } from '../catalog/load.ts';
import { checkService, type LinkResult, type ServiceCheckDeps } from './service-check.ts';

export interface RunSummary {
  services: number;
  links: number;
  outcomes: Record<string, number>;
  started_at: string;
  finished_at: string;
}

export async function checkEntries(
  deps: ServiceCheckDeps,
  entries: readonly CatalogEntry[],
  opts: { concurrency?: number; onLink?: (slug: string, result: LinkResult) => void } = {},
): Promise<RunSummary> {
  const started = new Date().toISOString();
  const outcomes: Record<string, number> = {};
  let links = 0;
  let next = 0;
  // One run id; each service's job id is unique within it, so history rows stay one per URL and run.
  const run = `cli-${randomUUID()}`;
  const lane = async () => {
    while (next < entries.length) {
      const e = entries[next++]!;
      await checkService(deps, e.record, `${run}:${e.record.slug}`, (r) => {
        links++;
        outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
        opts.onLink?.(e.record.slug, r);
      });
    }
  };
  const lanes = Math.max(1, Math.min(opts.concurrency ?? 8, entries.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return { services: entries.length, links, outcomes, started_at: started, finished_at: new Date().toISOString() };
}
