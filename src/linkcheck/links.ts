/**
 * Every link a catalog record shows a person: the website, the cancel page, the help
 * article, step and contact URLs, and the sources it cites. The link checker verifies each
 * one; the service page shows each one's latest result (docs/catalog.md, "Link checks").
 */
import type { ServiceRecord } from '../catalog/record.schema.ts';
import { BILLING_PLATFORM_DOMAINS } from '../catalog/vocabulary.ts';

export type LinkRole = 'cancel' | 'help' | 'website' | 'step' | 'contact' | 'source';

export interface RecordLink {
  url: string;
  /** what the record uses the URL for; one URL can serve several */
  roles: LinkRole[];
  /**
   * Hosts the link may end on without being `off_domain`: the service's own domains and
   * billing platforms, or for a source published elsewhere (a regulator, an index) its own host.
   */
  officialDomains: string[];
}

/** The cancel link: what `service_state.link_status` and `last_verified` describe. */
export function primaryLink(r: ServiceRecord): string {
  return r.cancel.url ?? r.cancel.help_url ?? r.website;
}

const hostOf = (url: string) => new URL(url).hostname.toLowerCase().replace(/^www\./, '');

/** Distinct links of a record, the cancel link first. */
export function recordLinks(r: ServiceRecord): RecordLink[] {
  const official = [...new Set([...r.domains.web, ...BILLING_PLATFORM_DOMAINS])];
  const byUrl = new Map<string, RecordLink>();
  const add = (url: string | null | undefined, role: LinkRole, domains: string[] = official) => {
    if (!url) return;
    const known = byUrl.get(url);
    if (known) {
      if (!known.roles.includes(role)) known.roles.push(role);
      return;
    }
    byUrl.set(url, { url, roles: [role], officialDomains: domains });
  };
  add(r.cancel.url, 'cancel');
  add(r.cancel.help_url, 'help');
  add(r.website, 'website');
  for (const s of r.steps) add(s.url, 'step');
  for (const c of r.cancel.contacts ?? []) add(c.url, 'contact');
  for (const s of r.sources) {
    if (s.url) add(s.url, 'source', s.kind.startsWith('official_') ? official : [hostOf(s.url)]);
  }
  return [...byUrl.values()];
}
