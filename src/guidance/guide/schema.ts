/**
 * Shapes of POST /api/v1/guide. The same schemas validate the request, check the
 * guide a writer produced and generate the OpenAPI document, so the descriptions
 * below are what API users read.
 */
import { z } from 'zod';

export const Tone = z
  .enum(['neutral', 'reassuring', 'terse'])
  .describe(
    'wording of the guide: neutral (plain and factual), reassuring (warm, says what to expect), terse (step titles and one short sentence)',
  );
export type Tone = z.infer<typeof Tone>;

// language[-Script][-REGION][-variant…][-extension…][-x-private]: the BCP 47 shapes people
// actually send. A bare syntax check would let "garbage" through (5–8 letters is a valid
// registered-language length), so the language subtag is held to ISO 639's 2–3 letters.
const BCP47 =
  /^[A-Za-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|\d{3}))?(?:-(?:[A-Za-z0-9]{5,8}|\d[A-Za-z0-9]{3}))*(?:-[0-9A-WY-Za-wy-z](?:-[A-Za-z0-9]{2,8})+)*(?:-[xX](?:-[A-Za-z0-9]{1,8})+)?$/;
const LOCALE_HINT = 'must be a BCP 47 language tag such as en, en-GB, de-DE or zh-Hant-TW';

/** true when Intl accepts the tag too (it also rejects e.g. a repeated variant) */
function canonicalizable(tag: string): boolean {
  try {
    Intl.getCanonicalLocales(tag);
    return true;
  } catch {
    return false;
  }
}

export const LocaleTag = z
  .string()
  .max(35, LOCALE_HINT)
  .regex(BCP47, LOCALE_HINT)
  .refine(canonicalizable, LOCALE_HINT)
  .describe(
    'BCP 47 language tag for the guide, e.g. de-DE. The template writer frames guides in en, de, fr and es and falls back by language, then to en; the response says which locale was served',
  );

export const GuideRequest = z
  .object({
    slug: z.string().min(1).max(100).describe('service slug, see GET /api/v1/services'),
    options: z
      .object({
        tone: Tone.optional(),
        locale: LocaleTag.optional(),
      })
      .strict()
      .optional()
      .describe('tone defaults to neutral; locale defaults to the language of the catalog record'),
  })
  .strict();
export type GuideRequest = z.infer<typeof GuideRequest>;

export const GuideStep = z.object({
  order: z.int().min(1).describe('1-based position; steps are done in this order'),
  title: z.string().min(1).describe('what to do, in the language given by steps_locale'),
  detail: z.string().nullable().describe('how and why; null when the step needs none or the tone is terse'),
  url: z.url().nullable().describe('official page for this step, taken from the catalog record; null when none'),
});

export const GuideTrap = z.object({
  summary: z.string().min(1).describe('the pitfall, in the language given by steps_locale'),
  how_to_avoid: z.string().nullable().describe('how to avoid it; null when the catalog records no advice'),
  severity: z.enum(['low', 'medium', 'high']).describe('how much it can cost you'),
});

export const Guide = z
  .object({
    entry: z.string().min(1).describe('display name of the service'),
    steps: z.array(GuideStep).min(1).describe('cancellation steps, in order'),
    traps: z.array(GuideTrap).describe('pitfalls to know before starting; may be empty'),
    explanation: z
      .string()
      .min(1)
      .describe('what to expect, built only from the catalog facts (difficulty tier, main hurdle, terms)'),
    source_url: z.url().describe('official page the guide rests on: help article, cancel page, or website'),
    tone: Tone,
    locale: z.string().describe('locale actually served for the framing text (explanation)'),
    steps_locale: z
      .string()
      .describe('language of steps and traps: the catalog language for template guides, the served locale for llm'),
    writer: z
      .enum(['template', 'llm'])
      .describe('template: deterministic text from the catalog; llm: the catalog facts rewritten by a model'),
  })
  .describe('a cancellation guide for one service');
export type Guide = z.infer<typeof Guide>;
export type GuideStep = z.infer<typeof GuideStep>;
export type GuideTrap = z.infer<typeof GuideTrap>;

export interface GuideOptions {
  tone: Tone;
  /** the requested tag as validated by LocaleTag; undefined = the catalog's language */
  locale?: string | undefined;
}
