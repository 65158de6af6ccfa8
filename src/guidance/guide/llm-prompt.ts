/**
 * What the model sees: the rules (system) and the record's facts as one JSON document
 * (user). Only facts the record states go in; URLs stay out, because links are filled
 * from the record afterwards and the model has no reason to write any.
 */
import type { FrictionResult } from '../../catalog/friction/compute.ts';
import type { ServiceRecord } from '../../catalog/record.schema.ts';
import type { Tone } from './schema.ts';

const TONES: Record<Tone, string> = {
  neutral: 'plain and factual. No pep talk, no exclamation marks.',
  reassuring:
    'warm and calm. Say that cancelling is normal and what to expect, mention the difficulty gently, and remind the reader to keep the confirmation.',
  terse:
    'as few words as possible, imperative. Step titles only (detail null unless a step is impossible without it); explanation at most one short sentence.',
};

/** The facts the model may use, in the shape the user message carries them. */
export function promptFacts(record: ServiceRecord, friction: FrictionResult, tone: Tone, locale: string) {
  const r = record;
  const driver = friction.details.find((d) => d.axis === friction.driver);
  return {
    service: r.name,
    facts_language: r.locale,
    write_in: locale,
    tone,
    difficulty: {
      tier: friction.tier,
      score: friction.difficulty,
      scale: '0 (effortless) to 10 (trap)',
      main_hurdle: friction.driver,
      why: driver?.explanation ?? null,
    },
    how_to_cancel: {
      channels: r.cancel.channels.map((c) => ({ type: c.type, note: c.note ?? null })),
      billing_routes: r.cancel.billing_routes,
      confirmation: r.cancel.confirmation,
      access_after_cancel: r.cancel.access_after_cancel,
      pause_available: r.cancel.pause_available,
    },
    retention_offers: r.retention.level,
    timing: r.timing.known
      ? {
          commitment: r.timing.commitment,
          notice_period: r.timing.notice_period,
          cutoff_before_renewal: r.timing.cutoff,
          renews_for_fixed_term: r.timing.renews_for_fixed_term,
          trial_converts: r.timing.trial_converts,
        }
      : null,
    verification: r.verification.requires,
    cost: r.cost.known
      ? {
          fees: r.cost.fees.map((f) => f.description),
          refund: r.cost.refund,
          refund_window_days: r.cost.refund_window_days,
          forfeits: r.cost.forfeits,
        }
      : null,
    no_working_exit: r.no_working_exit,
    steps: r.steps.map((s) => ({ title: s.title, detail: s.detail ?? null })),
    traps: r.traps.map((t) => ({ summary: t.summary, how_to_avoid: t.how_to_avoid ?? null, severity: t.severity })),
  };
}

export function buildPrompt(record: ServiceRecord, friction: FrictionResult, tone: Tone, locale: string) {
  const language = languageName(locale);
  const steps = record.steps.length;
  const traps = record.traps.length;
  const system = [
    'You rewrite cancellation guides for optout. The user message is a JSON document with the facts of one subscription service.',
    'Rules:',
    '1. Use only those facts. Add no facts, numbers, prices, deadlines, phone numbers, email addresses or promises they do not state. null means unknown: do not guess it.',
    `2. Write every text in ${language} (${locale}). Names of buttons and pages may stay as the facts write them.`,
    `3. Tone: ${TONES[tone]}`,
    `4. "steps": exactly ${steps} items, one per input step, in the same order. "title" says what to do; "detail" says how or why, or is null.`,
    `5. "traps": exactly ${traps} items, one per input trap, in the same order.`,
    '6. "explanation": what to expect, from the difficulty and the facts.',
    '7. Write no URLs or web addresses; links are added separately.',
    'Reply with one JSON object and nothing else, of exactly this shape:',
    '{"entry": string, "steps": [{"title": string, "detail": string | null}], "traps": [{"summary": string, "how_to_avoid": string | null}], "explanation": string}',
  ].join('\n');
  return { system, user: JSON.stringify(promptFacts(record, friction, tone, locale), null, 2) };
}

function languageName(tag: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}
