/**
 * The analysis response (docs/api.md, `POST /analyzer`): the six axis scores, the overall
 * difficulty and tier, and `why` — one entry per axis naming the rubric facts that
 * produced the score and the sources they rest on. Deterministic; no model involved.
 */
import { z } from 'zod';
import { AxisScores, Tier } from '../catalog/api-schemas.ts';
import type { CatalogEntry } from '../catalog/load.ts';
import { Axis } from '../catalog/vocabulary.ts';

export const AnalyzerRequest = z.strictObject({ slug: z.string().min(1).max(100).describe('service slug') });

const WhyEntry = z.object({
  axis: Axis,
  score: z.int().min(0).max(10),
  weight: z.number(),
  band: z.enum(['low', 'mid', 'high']),
  drives: z.boolean().describe('true for the axis that sets the overall number'),
  explanation: z.string().describe('the facts in plain words'),
  facts: z.array(z.string()).describe('rubric factor codes that fired (docs/friction.md)'),
  sources: z.array(
    z.object({ id: z.string(), title: z.string().nullable(), url: z.string().nullable(), confirmed: z.boolean() }),
  ),
});

export const Analysis = z.object({
  slug: z.string(),
  entry: z.string().describe('service name'),
  method: z.literal('cf-1.0'),
  friction: AxisScores,
  difficulty: z.number().describe('max(weighted mean, worst axis − 3), one decimal; 10.0 with no working exit'),
  tier: Tier,
  driver: Axis,
  mean: z.number(),
  floor: z.number(),
  why: z.array(WhyEntry),
});

export function analyze(entry: CatalogEntry): z.infer<typeof Analysis> {
  const { record, friction: f } = entry;
  const sourceById = new Map(record.sources.map((s) => [s.id, s]));
  return {
    slug: record.slug,
    entry: record.name,
    method: f.method,
    friction: f.axes,
    difficulty: f.difficulty,
    tier: f.tier,
    driver: f.driver,
    mean: f.mean,
    floor: f.floor,
    why: f.details.map((d) => ({
      axis: d.axis,
      score: d.score,
      weight: d.weight,
      band: d.band,
      drives: d.axis === f.driver,
      explanation: d.explanation,
      facts: d.factors,
      sources: d.source_ids.flatMap((id) => {
        const s = sourceById.get(id);
        return s ? [{ id, title: s.title ?? s.publisher, url: s.url, confirmed: s.confirmed }] : [];
      }),
    })),
  };
}
