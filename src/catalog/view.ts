/**
 * Projects catalog entries plus their run-time state (link checks) onto the API shapes.
 */
import type { z } from 'zod';
import type { Db } from '../storage/index.ts';
import type { LinkStatus, ServiceDetail, ServiceListItem } from './api-schemas.ts';
import type { CatalogEntry } from './load.ts';

export interface ServiceState {
  link_status: z.infer<typeof LinkStatus> | null;
  last_verified: string | null;
}

/** The state of every service that has one. */
export async function readStates(db: Db): Promise<Map<string, ServiceState>> {
  const { rows } = await db.query<{
    slug: string;
    link_status: ServiceState['link_status'];
    last_verified: Date | string | null;
  }>('select slug, link_status, last_verified from service_state');
  return new Map(
    rows.map((r) => [
      r.slug,
      {
        link_status: r.link_status,
        last_verified: r.last_verified === null ? null : new Date(r.last_verified).toISOString(),
      },
    ]),
  );
}

export function toListItem(e: CatalogEntry, state?: ServiceState): z.infer<typeof ServiceListItem> {
  const r = e.record;
  return {
    slug: r.slug,
    name: r.name,
    category: r.category,
    website: r.website,
    tier: e.friction.tier,
    difficulty: e.friction.difficulty,
    cancel_url: r.cancel.url ?? r.cancel.help_url,
    last_verified: state?.last_verified ?? null,
  };
}

export function toDetail(e: CatalogEntry, state?: ServiceState): z.infer<typeof ServiceDetail> {
  const r = e.record;
  const f = e.friction;
  return {
    slug: r.slug,
    service: r.name,
    aliases: r.aliases,
    category: r.category,
    region: r.region,
    locale: r.locale,
    website: r.website,
    domains: r.domains,
    cancel: r.cancel,
    retention: r.retention,
    timing: r.timing,
    verification: r.verification,
    cost: r.cost,
    no_working_exit: r.no_working_exit,
    plans: r.plans,
    steps: r.steps.map((s, i) => ({ order: i + 1, ...s })),
    traps: r.traps,
    friction: { method: f.method, axes: f.axes, difficulty: f.difficulty, tier: f.tier, driver: f.driver },
    sources: r.sources,
    notes: r.notes ?? null,
    version: e.version,
    last_verified: state?.last_verified ?? null,
    link_status: state?.link_status ?? null,
  };
}
