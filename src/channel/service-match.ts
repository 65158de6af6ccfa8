/**
 * Matches a sender domain to a catalog service through the services' sender domains
 * (domains.email), so "news@mailer.netflix.com" finds Netflix via netflix.com. Web
 * domains are not used: many brands share them (amazon.com) while sender domains are
 * unique across the catalog by rule.
 */
import type { Catalog } from '../catalog/load.ts';
import type { ServiceMatch } from '../mailbox/types.ts';

export function serviceMatcher(catalog: Catalog): (domain: string) => ServiceMatch | null {
  const byDomain = new Map<string, ServiceMatch>();
  for (const e of catalog.entries) {
    for (const d of e.record.domains.email) {
      byDomain.set(d, {
        slug: e.record.slug,
        name: e.record.name,
        tier: e.friction.tier,
        difficulty: e.friction.difficulty,
      });
    }
  }
  return (domain) => {
    const labels = domain.toLowerCase().replace(/\.$/, '').split('.');
    for (let i = 0; i + 2 <= labels.length; i++) {
      const hit = byDomain.get(labels.slice(i).join('.'));
      if (hit) return hit;
    }
    return null;
  };
}
