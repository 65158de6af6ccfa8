/**
 * Shapes of the catalog endpoints. The same zod schemas validate the requests,
 * serialize the responses and generate /.well-known/openapi.json.
 */
import { z } from 'zod';
import { TIERS } from './friction/compute.ts';
import {
  CancelSchema,
  CostSchema,
  PlanSchema,
  RetentionSchema,
  SourceSchema,
  StepSchema,
  TimingSchema,
  TrapSchema,
  VerificationSchema,
} from './record.schema.ts';
import { Axis, CategorySlug } from './vocabulary.ts';

export const Tier = z.enum(TIERS).describe('named difficulty tier, from effortless to trap');

export const AxisScores = z
  .object({
    path: z.int().min(0).max(10),
    channel: z.int().min(0).max(10),
    retention: z.int().min(0).max(10),
    timing: z.int().min(0).max(10),
    verification: z.int().min(0).max(10),
    cost: z.int().min(0).max(10),
  })
  .describe('six axes, 0 (no friction) to 10 (worst)');

export const FrictionSummary = z.object({
  method: z.literal('cf-1.0'),
  axes: AxisScores,
  difficulty: z.number().min(0).max(10).describe('overall difficulty, one decimal (docs/friction.md)'),
  tier: Tier,
  driver: Axis.describe('the axis that sets the overall number'),
});

export const LinkStatus = z
  .object({
    outcome: z.enum(['ok', 'moved', 'broken', 'blocked', 'soft_404', 'off_domain']),
    http_status: z.int().nullable(),
    final_url: z.string().nullable(),
    checked_at: z.string(),
  })
  .describe('result of the latest cancel-link check');

export const LinkCheck = z
  .object({
    outcome: LinkStatus.shape.outcome,
    http_status: z.int().nullable(),
    final_url: z.string().nullable(),
    checked_at: z.string(),
    last_reached_at: z.string().nullable().describe('the last check that reached the page (ok or moved)'),
  })
  .describe('the latest check of one link');

export const ServiceLink = z.object({
  url: z.string(),
  roles: z
    .array(z.enum(['cancel', 'help', 'website', 'step', 'contact', 'source']))
    .describe('what the record uses the link for'),
  check: LinkCheck.nullable().describe('null until the link checker has run over it'),
});

export const ServiceListItem = z.object({
  slug: z.string(),
  name: z.string(),
  category: CategorySlug,
  website: z.string(),
  tier: Tier,
  difficulty: z.number(),
  cancel_url: z.string().nullable(),
  last_verified: z.string().nullable(),
});

export const ServiceListQuery = z.object({
  q: z.string().trim().max(100).optional().describe('search in names, aliases and domains'),
  cat: CategorySlug.optional().describe('category slug, see /api/v1/categories'),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20),
});

export const ServiceList = z.object({
  items: z.array(ServiceListItem),
  total: z.int().describe('number of services matching, over all pages'),
  page: z.int(),
  page_size: z.int(),
});

export const SlugParams = z.object({ slug: z.string().min(1).max(100) });

// Output shapes describe what is sent, not how files are validated: URLs are plain
// strings here (the file validator already enforced https on official domains).
const CancelOut = CancelSchema.extend({
  url: z.string().nullable().describe('page holding the cancel control'),
  help_url: z.string().nullable().describe('official help article on cancelling'),
});

export const ServiceDetail = z.object({
  slug: z.string(),
  service: z.string().describe('display name'),
  aliases: z.array(z.string()),
  category: CategorySlug,
  region: z.string(),
  locale: z.string().describe('language of steps and traps'),
  website: z.string(),
  domains: z.object({ web: z.array(z.string()), email: z.array(z.string()) }),
  cancel: CancelOut,
  retention: RetentionSchema,
  timing: TimingSchema,
  verification: VerificationSchema,
  cost: CostSchema,
  no_working_exit: z.boolean(),
  plans: z.array(PlanSchema),
  steps: z.array(StepSchema.extend({ order: z.int() })),
  traps: z.array(TrapSchema),
  friction: FrictionSummary,
  sources: z.array(SourceSchema).describe('where each fact comes from; source_ids elsewhere point here'),
  notes: z.string().nullable(),
  version: z.string().describe('content hash of the record'),
  last_verified: z.string().nullable().describe('when a link check last reached the cancel page'),
  link_status: LinkStatus.nullable(),
  links: z
    .array(ServiceLink)
    .describe('every link on this record (cancel page first) with its latest check; re-verified weekly'),
});

export const CategoryItem = z.object({
  slug: CategorySlug,
  name: z.string(),
  description: z.string(),
  count: z.int(),
});
export const CategoryList = z.object({ categories: z.array(CategoryItem) });
