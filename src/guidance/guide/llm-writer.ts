/**
 * The model-backed guide writer. The model only rewords: the record decides how many
 * steps and traps there are, their order, links and severities; the answer is parsed,
 * schema-checked and scanned for URLs the record does not contain. Anything short of a
 * complete, clean guide is a failure with a retry hint (→ 503 LLM_UNAVAILABLE), never
 * a half answer.
 */
import { z } from 'zod';
import type { FrictionResult } from '../../catalog/friction/compute.ts';
import type { ServiceRecord } from '../../catalog/record.schema.ts';
import type { LlmClient, LlmFailureReason } from '../llm/types.ts';
import { buildPrompt } from './llm-prompt.ts';
import { Guide, type GuideOptions, type Tone } from './schema.ts';
import { sourceUrlOf } from './template-writer.ts';

export const DEFAULT_RETRY_AFTER_SECONDS = 30;

export type LlmGuideResult =
  | { ok: true; guide: Guide }
  | { ok: false; reason: LlmFailureReason; retryAfterSeconds: number; status?: number };

// Empty strings and omitted optional texts both mean "nothing to add".
const OptionalText = z
  .string()
  .trim()
  .max(1500)
  .nullish()
  .transform((v) => v || null);

export const LlmGuideOutput = z.strictObject({
  entry: z.string().trim().min(1).max(200),
  steps: z.array(z.strictObject({ title: z.string().trim().min(1).max(300), detail: OptionalText })),
  traps: z.array(z.strictObject({ summary: z.string().trim().min(1).max(1500), how_to_avoid: OptionalText })),
  explanation: z.string().trim().min(1).max(3000),
});

export async function writeGuideWithLlm(
  client: LlmClient,
  record: ServiceRecord,
  friction: FrictionResult,
  options: GuideOptions,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<LlmGuideResult> {
  const tone: Tone = options.tone ?? 'neutral';
  const locale = options.locale ? (Intl.getCanonicalLocales(options.locale)[0] ?? record.locale) : record.locale;
  const prompt = buildPrompt(record, friction, tone, locale);
  const res = await client.complete({ ...prompt, timeoutMs, signal });
  if (!res.ok) {
    return {
      ok: false,
      reason: res.reason,
      retryAfterSeconds: res.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS,
      ...(res.status === undefined ? {} : { status: res.status }),
    };
  }
  const bad = { ok: false, reason: 'bad_response', retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS } as const;
  const out = LlmGuideOutput.safeParse(parseJsonText(res.text));
  if (!out.success) return bad;
  const o = out.data;
  if (o.steps.length !== record.steps.length || o.traps.length !== record.traps.length) return bad;
  if (foreignUrls(o, record).length > 0) return bad;

  const guide = Guide.safeParse({
    // The name is the catalog's, not the model's to restyle.
    entry: record.name,
    steps: o.steps.map((s, i) => ({
      order: i + 1,
      title: s.title,
      detail: s.detail,
      url: record.steps[i]!.url ?? null,
    })),
    traps: o.traps.map((t, i) => ({
      summary: t.summary,
      how_to_avoid: t.how_to_avoid,
      severity: record.traps[i]!.severity,
    })),
    explanation: o.explanation,
    source_url: sourceUrlOf(record),
    tone,
    locale,
    // the model rewrote steps and traps too, so they are in the served locale
    steps_locale: locale,
    writer: 'llm',
  } satisfies Guide);
  return guide.success ? { ok: true, guide: guide.data } : bad;
}

/** The answer's JSON, tolerating the code fences or lead-in some models add; undefined if none. */
function parseJsonText(text: string): unknown {
  const t = text.trim();
  const start = t.indexOf('{');
  const end = t.lastIndexOf('}');
  if (start < 0 || end < start) return undefined;
  try {
    return JSON.parse(t.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

const URL_RE = /\b(?:https?:\/\/|www\.)[^\s"'<>()[\]{}]+/gi;

function urlKeys(text: string): string[] {
  return [...text.matchAll(URL_RE)].map((m) =>
    m[0]
      .replace(/[.,;:!?]+$/, '')
      .toLowerCase()
      .replace(/^https?:\/\//, '')
      .replace(/^www\./, '')
      .replace(/\/+$/, ''),
  );
}

/** URLs in the model's text that appear nowhere in the record (compared without scheme, www. and trailing slash). */
export function foreignUrls(output: unknown, record: ServiceRecord): string[] {
  const known = new Set(texts(record).flatMap(urlKeys));
  return texts(output)
    .flatMap(urlKeys)
    .filter((u) => !known.has(u));
}

/** every string inside a JSON-like value (scanned one by one, so JSON escapes never glue onto a URL) */
function texts(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(texts);
  if (v && typeof v === 'object') return Object.values(v).flatMap(texts);
  return [];
}
