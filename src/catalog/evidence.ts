/**
 * The evidence of reading (catalog/evidence/<slug>.json and catalog/evidence/rights/<REGION>.json):
 * what was searched in the stored corpora and which pages were actually read, with the day.
 * A source may be `confirmed` only when its exact URL is listed there as read, on that day,
 * and not marked `off_domain` (a help desk hosted elsewhere never counts as official) or
 * `other_market` (another country's site says how it works there, not in the record's region).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Source } from './record.schema.ts';

const ReadPage = z.object({
  url: z.string(),
  title: z.string().optional(),
  read_at: z.iso.date(),
  off_domain: z.boolean().optional(),
  /** another market's edition (e.g. a Canadian help centre for a US record): read, never confirming */
  other_market: z.boolean().optional(),
});

const EvidenceFile = z.object({
  searches: z.array(z.object({ query: z.string(), on: z.iso.date() })).default([]),
  read: z.array(ReadPage).default([]),
  note: z.string().optional(),
});

export type Evidence = z.infer<typeof EvidenceFile>;

/** Evidence by key: the service slug, or `rights/<REGION>`. */
export async function loadEvidence(dir: string): Promise<Map<string, Evidence>> {
  const out = new Map<string, Evidence>();
  const read = async (sub: string, prefix: string) => {
    let files: string[];
    try {
      files = (await readdir(join(dir, sub))).filter((f) => f.endsWith('.json'));
    } catch {
      return;
    }
    for (const f of files) {
      const json = JSON.parse(await readFile(join(dir, sub, f), 'utf8'));
      out.set(`${prefix}${f.replace(/\.json$/, '')}`, EvidenceFile.parse(json));
    }
  };
  await read('', '');
  await read('rights', 'rights/');
  return out;
}

/** The confirmed sources that the evidence does not show as read (url and day), with why. */
export function unreadConfirmed(sources: Source[], evidence: Evidence | undefined): string[] {
  const problems: string[] = [];
  for (const s of sources.filter((x) => x.confirmed)) {
    const page = evidence?.read.find((p) => p.url === s.url);
    if (!page) problems.push(`${s.id}: ${s.url} is not listed as read in the evidence`);
    else if (page.off_domain) problems.push(`${s.id}: ${s.url} is off the service's domain`);
    else if (page.other_market) problems.push(`${s.id}: ${s.url} is another market's page`);
    else if (page.read_at !== s.read_at) problems.push(`${s.id}: read_at ${s.read_at} but read on ${page.read_at}`);
  }
  return problems;
}
