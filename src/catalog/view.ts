/**
 * Projects catalog entries plus their run-time state (link checks) onto the API shapes.
 */
import type { z } from 'zod';
import { recordLinks } from '../linkcheck/links.ts';
import type { Db } from '../storage/index.ts';
import type { LinkCheck, LinkStatus, ServiceDetail, ServiceLink, ServiceListItem } from './api-schemas.ts';
import type { CatalogEntry } from './load.ts';

export interface ServiceState {
  link_status: z.infer<typeof LinkStatus> | null;
  last_verified: string | null;
  /** the latest check of each link by URL (links no longer in the record may linger) */
  links: Readonly<Record<string, z.infer<typeof LinkCheck>>>;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** The latest check of every link, by service then URL. */
export async function readLinkStates(db: Db): Promise<Map<string, Record<string, z.infer<typeof LinkCheck>>>> {
  const { rows } = await db.query<{
    slug: string;
    url: string;
    outcome: z.infer<typeof LinkCheck>['outcome'];
    http_status: number | null;
    final_url: string | null;
    checked_at: Date | string;
    last_reached_at: Date | string | null;
  }>('select slug, url, outcome, http_status, final_url, checked_at, last_reached_at from link_state');
  const by = new Map<string, Record<string, z.infer<typeof LinkCheck>>>();
  for (const r of rows) {
    const links = by.get(r.slug) ?? {};
    links[r.url] = {
      outcome: r.outcome,
      http_status: r.http_status,
      final_url: r.final_url,
      checked_at: iso(r.checked_at) ?? '',
      last_reached_at: iso(r.last_reached_at),
    };
    by.set(r.slug, links);
  }
  return by;
}

/** The state of every service that has one; `links` as read by readLinkStates (passed in when unchanged). */
export async function readStates(
  db: Db,
  links?: Map<string, Record<string, z.infer<typeof LinkCheck>>>,
): Promise<Map<string, ServiceState>> {
  const { rows } = await db.query<{
    slug: string;
    link_status: ServiceState['link_status'];
    last_verified: Date | string | null;
  }>('select slug, link_status, last_verified from service_state');
  const perLink = links ?? (await readLinkStates(db));
  const states = new Map<string, ServiceState>();
  for (const r of rows) {
    states.set(r.slug, {
      link_status: r.link_status,
      last_verified: iso(r.last_verified),
      links: perLink.get(r.slug) ?? {},
    });
  }
  for (const [slug, l] of perLink)
    if (!states.has(slug)) states.set(slug, { link_status: null, last_verified: null, links: l });
  return states;
}

/** Every link of the record with its latest check (null: not checked yet), the cancel link first. */
export function serviceLinks(e: CatalogEntry, state?: ServiceState): z.infer<typeof ServiceLink>[] {
  return recordLinks(e.record).map((l) => ({ url: l.url, roles: l.roles, check: state?.links[l.url] ?? null }));
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
    links: serviceLinks(e, state),
  };
}
