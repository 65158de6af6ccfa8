/**
 * The most-used services (catalog/most-used.json): an ordered list of slugs and the criterion
 * that ordered it. The catalog report counts how many of them rest on a read official help
 * article, because those are the records most people will open ([docs/catalog.md]).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { Slug } from './record.schema.ts';

export const MOST_USED_SIZE = 100;

export const MostUsedSchema = z.strictObject({
  /** how the list was ordered, in words a reader can check */
  criterion: z.string().min(20),
  /** the day the list was last reviewed */
  reviewed_at: z.iso.date(),
  slugs: z.array(Slug).length(MOST_USED_SIZE),
});

export type MostUsed = z.infer<typeof MostUsedSchema>;

export async function loadMostUsed(catalogDir: string): Promise<MostUsed> {
  return MostUsedSchema.parse(JSON.parse(await readFile(join(catalogDir, 'most-used.json'), 'utf8')));
}

/** Problems with the list against the catalog: duplicates and slugs that name no record. */
export function mostUsedProblems(list: MostUsed, slugs: Set<string>): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const s of list.slugs) {
    if (seen.has(s)) problems.push(`${s} is listed twice`);
    seen.add(s);
    if (!slugs.has(s)) problems.push(`${s} is not a catalog record`);
  }
  return problems;
}
