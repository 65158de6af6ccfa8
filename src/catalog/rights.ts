/**
 * Consumer rights per region (catalog/rights/<REGION>.json): what the law gives a person who
 * cancels and what to do when a company refuses. Every statement rests on a statute, a regulator,
 * a court, another public body or a consumer organisation's page that was read (confirmed sources
 * only; never a company, a law firm or a news page); a region without such pages has no file, and
 * the service page then shows no rights section rather than an unsourced one.
 */
import { z } from 'zod';
import { Slug, SourceSchema } from './record.schema.ts';
import type { CatalogIssue } from './validate.ts';

const RIGHTS_SOURCE_KINDS = new Set(['legislation', 'regulator', 'court', 'public_body', 'consumer_body']);

export const RightsTopic = z.enum(['law', 'when_refused', 'card_dispute', 'complaint']);

export const RightsSchema = z.strictObject({
  /** ISO 3166-1 alpha-2, or EU */
  region: z.string().regex(/^([A-Z]{2}|EU)$/),
  /** the region's name as shown, e.g. "the United Kingdom" */
  name: z.string().min(2),
  statements: z
    .array(
      z.strictObject({
        id: Slug,
        topic: RightsTopic,
        text: z.string().trim().min(10).max(600),
        source_ids: z.array(z.string().regex(/^s\d+$/)).min(1),
      }),
    )
    .min(1),
  sources: z.array(SourceSchema).min(1),
});

export type Rights = z.infer<typeof RightsSchema>;

export function validateRights(file: string, json: unknown): { rights?: Rights; issues: CatalogIssue[] } {
  const parsed = RightsSchema.safeParse(json);
  if (!parsed.success) {
    return {
      issues: parsed.error.issues.map((i) => ({ file, path: i.path.map(String).join('.'), message: i.message })),
    };
  }
  const r = parsed.data;
  const issues: CatalogIssue[] = [];
  const add = (path: string, message: string) => issues.push({ file, path, message });
  const base = file
    .split('/')
    .pop()
    ?.replace(/\.json$/, '');
  if (base !== r.region) add('region', `must equal the file name "${base}"`);
  const ids = new Set<string>();
  for (const [i, s] of r.sources.entries()) {
    if (ids.has(s.id)) add(`sources[${i}].id`, `duplicate source id ${s.id}`);
    ids.add(s.id);
    if (!RIGHTS_SOURCE_KINDS.has(s.kind))
      add(
        `sources[${i}].kind`,
        'rights rest on legislation, a regulator, a court, a public body or a consumer organisation',
      );
    if (!s.confirmed || !s.url || !s.read_at || !s.title) {
      add(`sources[${i}].confirmed`, 'every rights source is a page that was read: confirmed, url, title, read_at');
    }
  }
  for (const [i, st] of r.statements.entries()) {
    for (const id of st.source_ids) if (!ids.has(id)) add(`statements[${i}].source_ids`, `unknown source id ${id}`);
  }
  return { rights: r, issues };
}
