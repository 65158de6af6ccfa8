/**
 * cf-1.0 overall difficulty (docs/friction.md, "Formula"):
 *   mean  = Σ weight·score
 *   floor = worst axis − 3          (one severe barrier cannot be averaged away)
 *   difficulty = round1(clamp(max(mean, floor), 0, 10)); 10.0 when there is no working exit.
 * Deterministic: the same record always yields the same numbers; no model is involved.
 */
import type { ServiceRecord } from '../record.schema.ts';
import { AXES, type Axis } from '../vocabulary.ts';
import { explainFactor } from './explain.ts';
import { RUBRIC } from './rubric.ts';

export const METHOD = 'cf-1.0';

export const WEIGHTS: Record<Axis, number> = {
  path: 0.16,
  channel: 0.22,
  retention: 0.2,
  timing: 0.16,
  verification: 0.12,
  cost: 0.14,
};

export const TIERS = ['effortless', 'easy', 'moderate', 'hard', 'very_hard', 'trap'] as const;
export type Tier = (typeof TIERS)[number];

export function tierOf(difficulty: number): Tier {
  if (difficulty < 1.5) return 'effortless';
  if (difficulty < 3) return 'easy';
  if (difficulty < 4.5) return 'moderate';
  if (difficulty < 6) return 'hard';
  if (difficulty < 7.5) return 'very_hard';
  return 'trap';
}

export interface AxisDetail {
  axis: Axis;
  score: number;
  weight: number;
  band: 'low' | 'mid' | 'high';
  factors: string[];
  explanation: string;
  source_ids: string[];
}

export interface FrictionResult {
  method: typeof METHOD;
  axes: Record<Axis, number>;
  details: AxisDetail[];
  mean: number;
  floor: number;
  difficulty: number;
  tier: Tier;
  driver: Axis;
  no_working_exit: boolean;
}

const round = (n: number, d: number) => Math.round(n * 10 ** d) / 10 ** d;

export function computeFriction(record: ServiceRecord): FrictionResult {
  const details = AXES.map((axis): AxisDetail => {
    const r = RUBRIC[axis](record);
    return {
      axis,
      score: r.score,
      weight: WEIGHTS[axis],
      band: r.score <= 3 ? 'low' : r.score <= 6 ? 'mid' : 'high',
      factors: r.factors,
      explanation: r.factors.map(explainFactor).join(' '),
      source_ids: r.source_ids,
    };
  });
  const axes = Object.fromEntries(details.map((d) => [d.axis, d.score])) as Record<Axis, number>;
  const mean = round(
    details.reduce((sum, d) => sum + d.weight * d.score, 0),
    2,
  );
  const worst = details.reduce((a, d) => (d.score > a.score ? d : a));
  const floor = Math.max(0, worst.score - 3);
  const difficulty = record.no_working_exit ? 10 : round(Math.min(10, Math.max(mean, floor, 0)), 1);
  // The driver is the axis that sets the number: the floor's axis when the floor wins,
  // otherwise the largest weighted term.
  const driver =
    floor > mean ? worst.axis : details.reduce((a, d) => (d.weight * d.score > a.weight * a.score ? d : a)).axis;
  return {
    method: METHOD,
    axes,
    details,
    mean,
    floor,
    difficulty,
    tier: tierOf(difficulty),
    driver,
    no_working_exit: record.no_working_exit,
  };
}
