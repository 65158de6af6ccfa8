/**
 * The catalog as the service holds it in memory: what load.ts builds from catalog/*.json and
 * snapshot.ts keeps between starts.
 */
import { z } from 'zod';
import type { FrictionResult } from './friction/compute.ts';
import type { ServiceRecord } from './record.schema.ts';
import type { Rights } from './rights.ts';
import type { SearchKeys } from './search.ts';
import { CategorySlug } from './vocabulary.ts';

export interface CatalogEntry {
  record: ServiceRecord;
  version: string;
  friction: FrictionResult;
  keys: SearchKeys;
}

export const CategoriesSchema = z.array(
  z.strictObject({ slug: CategorySlug, name: z.string(), description: z.string() }),
);
export type Category = z.infer<typeof CategoriesSchema>[number];

export interface Catalog {
  /** sorted by name */
  entries: CatalogEntry[];
  bySlug: Map<string, CatalogEntry>;
  categories: Category[];
  /** consumer rights by region (catalog/rights/<REGION>.json) */
  rights: Map<string, Rights>;
}
