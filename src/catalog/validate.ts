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

// North American, international and grouped digit runs that read as phone numbers.
// The catalog never carries phone numbers: search results for "cancel X" are full of
// scam "support lines", so people are sent to the
// account page of the service, which shows the real number.
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
  r.sources.forEach((s, i) => {
    if (sourceIds.has(s.id)) add(`sources[${i}].id`, `duplicate source id ${s.id}`);
    sourceIds.add(s.id);
    if (s.kind.startsWith('official_') && s.url && !isOnDomains(s.url, r.domains.web)) {
      add(`sources[${i}].url`, 'an official source must sit on one of domains.web');
    }
    if (!s.confirmed && !s.via && s.url === null) add(`sources[${i}]`, 'an unconfirmed source needs a url or a via');
    if (s.confirmed && (s.url === null || s.accessed_at === null)) {
      add(`sources[${i}].confirmed`, 'a confirmed source needs the url that was read and accessed_at');
    }
  });
  const trapIds = new Set<string>();
  r.traps.forEach((t, i) => {
    if (trapIds.has(t.id)) add(`traps[${i}].id`, `duplicate trap id ${t.id}`);
    trapIds.add(t.id);
  });

  walkStrings(r, '', (s, path) => {
    if (/source_ids\[\d+\]$/.test(path) && !sourceIds.has(s)) add(path, `unknown source id ${s}`);
    if (/trap_ids\[\d+\]$/.test(path) && !trapIds.has(s)) add(path, `unknown trap id ${s}`);
    if (!/(url|website)$/.test(path) && PHONE.test(s)) add(path, 'looks like a phone number; the catalog carries none');
  });

  const official = [...r.domains.web, ...BILLING_PLATFORM_DOMAINS];
  const checkUrl = (url: string | null | undefined, path: string) => {
    if (url && !isOnDomains(url, official))
      add(path, `${new URL(url).hostname} is not one of domains.web or a billing platform`);
  };
  if (!isOnDomains(r.website, r.domains.web)) add('website', 'must sit on one of domains.web');
  checkUrl(r.cancel.url, 'cancel.url');
  checkUrl(r.cancel.help_url, 'cancel.help_url');
  for (const [i, s] of r.steps.entries()) checkUrl(s.url, `steps[${i}].url`);

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
