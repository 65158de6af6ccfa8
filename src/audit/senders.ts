/**
 * The catalog as the audit needs it: each service's sender domains (`domains.email`, unique
 * across the catalog by rule, docs/catalog.md) → what the spend entry says of it. A sender's
 * domain matches a service when it is one of those domains or a subdomain of one
 * ("info@account.netflix.com" is Netflix's), never by the web domains (several brands share
 * amazon.com or google.com for mail that is not theirs).
 */
import type { Catalog } from '../catalog/load.ts';
import type { ServiceNames } from './receipt.ts';
import type { ServiceFacts } from './spend.ts';

export type AuditServiceInfo = ServiceFacts & ServiceNames;

export interface AuditCatalog {
  /** every sender domain of every service */
  readonly domains: readonly string[];
  /** the service a sender domain belongs to, or null */
  match(domain: string): AuditServiceInfo | null;
}

export function auditCatalog(catalog: Catalog, baseUrl: string): AuditCatalog {
  const byDomain = new Map<string, AuditServiceInfo>();
  for (const e of catalog.entries) {
    const r = e.record;
    const info: AuditServiceInfo = {
      slug: r.slug,
      name: r.name,
      aliases: r.aliases,
      tier: e.friction.tier,
      difficulty: e.friction.difficulty,
      guide_url: `${baseUrl}/services/${r.slug}`,
      plan_periods: r.plans.map((p) => p.billing_period),
      plans: r.plans.map((p) => p.name),
    };
    for (const d of r.domains.email) byDomain.set(d, info);
  }
  return {
    domains: [...byDomain.keys()].sort(),
    match(domain) {
      const labels = domain.toLowerCase().replace(/\.$/, '').split('.');
      for (let i = 0; i + 2 <= labels.length; i++) {
        const hit = byDomain.get(labels.slice(i).join('.'));
        if (hit) return hit;
      }
      return null;
    },
  };
}
