/**
 * Validation of catalog data files: the zod schema first, then the rules a schema
 * cannot state (references, official domains, uniqueness). Every problem names the
 * file and the field path, so a reviewer can fix a record without reading code.
 */

import { type ServiceRecord, ServiceRecordSchema } from './record.schema.ts';
import { BILLING_PLATFORM_DOMAINS } from './vocabulary.ts';

export interface CatalogIssue {
  file: string;
  path: string;
  message: string;
}

export function formatIssue(issue: CatalogIssue): string {
  return `${issue.file}: ${issue.path || '(record)'}: ${issue.message}`;
}

/** A host is official when it is one of the service's web domains or below one. */
export function isOnDomains(url: string, domains: readonly string[]): boolean {
  const host = new URL(url).hostname.toLowerCase();
  return domains.some((d) => host === d || host.endsWith(`.${d}`));
}

/** A bare home page (no path, no query) shows that a site exists, not what it says about cancelling. */
export function isHomePage(url: string): boolean {
  const u = new URL(url);
  return (u.pathname === '/' || u.pathname === '') && u.search === '';
}

// North American, international and grouped digit runs that read as phone numbers.
// Search results for "cancel X" are full of scam "support lines" (docs/catalog.md, "Phone numbers only from an official page"):
// a number may appear only as `cancel.contacts[].phone`, resting on an official page that was
// read; anywhere else in the text it is refused.
const PHONE = /(\+\d[\d\s().-]{7,}\d)|(\(?\b\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}\b)|(\b1-?8\d{2}-)/;

function walkStrings(value: unknown, path: string, visit: (s: string, path: string) => void): void {
  if (typeof value === 'string') visit(value, path);
  else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) walkStrings(v, `${path}[${i}]`, visit);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) walkStrings(v, path ? `${path}.${k}` : k, visit);
  }
}

export function validateRecord(file: string, json: unknown): { record?: ServiceRecord; issues: CatalogIssue[] } {
  const parsed = ServiceRecordSchema.safeParse(json);
  if (!parsed.success) {
    return {
      issues: parsed.error.issues.map((i) => ({
        file,
        path: i.path
          .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
          .join('')
          .replace(/^\./, ''),
        message: i.message,
      })),
    };
  }
  const r = parsed.data;
  const issues: CatalogIssue[] = [];
  const add = (path: string, message: string) => issues.push({ file, path, message });

  const base = file
    .split('/')
    .pop()
    ?.replace(/\.json$/, '');
  if (base !== r.slug) add('slug', `must equal the file name "${base}"`);

  const sourceIds = new Set<string>();
  const readOfficial = new Set<string>();
  r.sources.forEach((s, i) => {
    if (sourceIds.has(s.id)) add(`sources[${i}].id`, `duplicate source id ${s.id}`);
    sourceIds.add(s.id);
    const official = s.kind.startsWith('official_');
    if (official && s.url && !isOnDomains(s.url, r.domains.web)) {
      add(`sources[${i}].url`, 'an official source must sit on one of domains.web');
    }
    if (!s.confirmed && !s.via) add(`sources[${i}].via`, 'an unconfirmed source says why (via)');
    if (s.confirmed && (s.url === null || s.read_at === null || !s.title)) {
      add(`sources[${i}].confirmed`, 'a confirmed source needs the url that was read, its title and read_at');
    }
    if (s.confirmed && s.url && isHomePage(s.url)) {
      add(`sources[${i}].url`, 'a home page is not evidence; cite the page that states the facts');
    }
    if (s.confirmed && official) readOfficial.add(s.id);
  });
  const checkUrlLater: [string, string][] = [];
  const trapIds = new Set<string>();
  r.traps.forEach((t, i) => {
    if (trapIds.has(t.id)) add(`traps[${i}].id`, `duplicate trap id ${t.id}`);
    trapIds.add(t.id);
  });

  walkStrings(r, '', (s, path) => {
    if (/(source_ids\[\d+\]|source_id)$/.test(path) && !sourceIds.has(s)) add(path, `unknown source id ${s}`);
    if (/trap_ids\[\d+\]$/.test(path) && !trapIds.has(s)) add(path, `unknown trap id ${s}`);
    if (/^cancel\.contacts\[\d+\]\.phone$/.test(path)) return;
    if (!/(url|website)$/.test(path) && PHONE.test(s)) {
      add(
        path,
        'looks like a phone number; numbers belong only in cancel.contacts[].phone, from an official page read',
      );
    }
  });

  // Exits by phone, letter or chat rest only on official pages that were read.
  for (const [i, c] of (r.cancel.contacts ?? []).entries()) {
    const at = `cancel.contacts[${i}]`;
    for (const id of c.source_ids) {
      if (sourceIds.has(id) && !readOfficial.has(id)) add(`${at}.source_ids`, `${id} is not a confirmed official page`);
    }
    if (c.type === 'phone' && !c.phone) add(`${at}.phone`, 'a phone contact needs the number');
    if (c.type !== 'phone' && c.phone) add(`${at}.phone`, `a ${c.type} contact carries no phone number`);
    if (c.type === 'postal_mail' && !c.address) add(`${at}.address`, 'a postal contact needs the address');
    if (c.type === 'chat' && !c.url && !c.note) add(at, 'a chat contact needs where to find it (url or note)');
    if (c.url) checkUrlLater.push([c.url, `${at}.url`]);
  }

  // A price stays only with the day it was read and the confirmed official page that states it.
  for (const [i, p] of r.plans.entries()) {
    if (p.price && sourceIds.has(p.price.source_id) && !readOfficial.has(p.price.source_id)) {
      add(`plans[${i}].price.source_id`, `${p.price.source_id} is not a confirmed official page`);
    }
  }

  const official = [...r.domains.web, ...BILLING_PLATFORM_DOMAINS];
  const checkUrl = (url: string | null | undefined, path: string) => {
    if (url && !isOnDomains(url, official))
      add(path, `${new URL(url).hostname} is not one of domains.web or a billing platform`);
  };
  if (!isOnDomains(r.website, r.domains.web)) add('website', 'must sit on one of domains.web');
  checkUrl(r.cancel.url, 'cancel.url');
  checkUrl(r.cancel.help_url, 'cancel.help_url');
  for (const [i, s] of r.steps.entries()) checkUrl(s.url, `steps[${i}].url`);
  for (const [url, path] of checkUrlLater) checkUrl(url, path);

  return { record: r, issues };
}

/** Rules across records: unique slugs and unique sender domains. */
export function validateCatalog(entries: { file: string; record: ServiceRecord }[]): CatalogIssue[] {
  const issues: CatalogIssue[] = [];
  const slugs = new Map<string, string>();
  const senders = new Map<string, string>();
  for (const { file, record } of entries) {
    const other = slugs.get(record.slug);
    if (other) issues.push({ file, path: 'slug', message: `slug ${record.slug} is also used by ${other}` });
    slugs.set(record.slug, file);
    record.domains.email.forEach((d, i) => {
      const owner = senders.get(d);
      if (owner)
        issues.push({ file, path: `domains.email[${i}]`, message: `sender domain ${d} is also claimed by ${owner}` });
      senders.set(d, file);
    });
  }
  return issues;
}
