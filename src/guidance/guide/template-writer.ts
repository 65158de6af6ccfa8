/**
 * The deterministic guide writer (LLM_PROVIDER=none).
 * Steps and traps are the catalog's own words, untouched; the explanation is assembled
 * from fixed sentences, each chosen by a fact of the record or its friction result, so
 * it never says anything the catalog does not. Same input, same output.
 */
import type { FrictionResult } from '../../catalog/friction/compute.ts';
import type { ServiceRecord } from '../../catalog/record.schema.ts';
import { FRAMINGS, type Framing, formatDuration, formatOr, formatScore, negotiateLocale } from './locales.ts';
import type { Guide, GuideOptions, Tone } from './schema.ts';

const OFFICIAL_SOURCES = new Set(['official_help', 'official_terms', 'official_page', 'official_forum']);

/** The official page a guide rests on: help article, cancel page, an official source, the website. */
export function sourceUrlOf(record: ServiceRecord): string {
  return (
    record.cancel.help_url ??
    record.cancel.url ??
    record.sources.find((s) => OFFICIAL_SOURCES.has(s.kind) && s.url)?.url ??
    record.website
  );
}

export function writeGuide(record: ServiceRecord, friction: FrictionResult, options: GuideOptions): Guide {
  const tone: Tone = options.tone ?? 'neutral';
  const locale = negotiateLocale(options.locale, record.locale);
  const f = FRAMINGS[locale];
  const text = explain(record, friction, tone, f);
  return {
    entry: record.name,
    steps: record.steps.map((s, i) => ({
      order: i + 1,
      title: s.title,
      // terse means titles only; the detail is still one request away in the record
      detail: tone === 'terse' ? null : (s.detail ?? null),
      url: s.url ?? null,
    })),
    traps: record.traps.map((t) => ({
      summary: t.summary,
      how_to_avoid: t.how_to_avoid ?? null,
      severity: t.severity,
    })),
    explanation: f.polish ? f.polish(text) : text,
    source_url: sourceUrlOf(record),
    tone,
    locale,
    steps_locale: record.locale,
    writer: 'template',
  };
}

function explain(r: ServiceRecord, fr: FrictionResult, tone: Tone, f: Framing): string {
  const label = f.tier[fr.tier];
  const score = formatScore(fr.difficulty, f);
  // An axis scoring 0 drives nothing worth naming (e.g. a record with no friction at all).
  const driver = fr.axes[fr.driver] > 0 ? f.axis[fr.driver] : null;
  const low = fr.tier === 'effortless' || fr.tier === 'easy';
  // Several billing routes mean the first job is finding out who can stop the charge.
  const billers = r.cancel.billing_routes.length > 1 ? r.cancel.billing_routes.map((b) => f.route(b, r.name)) : [];

  if (tone === 'terse') return f.terse(label, score, driver, billers.length > 0, r.no_working_exit);

  const t = r.timing;
  const terms = [
    t.commitment && formatDuration(t.commitment, f),
    t.notice_period && formatDuration(t.notice_period, f),
    t.cutoff && formatDuration(t.cutoff, f),
  ] as const;
  const timing = [
    terms[0] && f.neutral.commitment(terms[0]),
    terms[1] && f.neutral.notice(terms[1]),
    terms[2] && f.neutral.cutoff(terms[2]),
  ];
  const level = r.retention.level;
  // A deceptive flow already warns about pauses; saying it twice dilutes the warning.
  const pause = r.cancel.pause_available === true && level !== 'deceptive';
  const access = r.cancel.access_after_cancel;
  const traps = r.traps.length;

  const sentences: (string | null | false | undefined | '')[] =
    tone === 'reassuring'
      ? [
          f.reassuring.open(r.name, fr.tier, label, score),
          driver && !low && f.reassuring.focus(driver),
          f.reassuring.expect,
          billers.length > 0 && f.reassuring.billers(formatOr(billers, f)),
          r.no_working_exit && f.reassuring.noExit,
          level && f.reassuring.retention[level],
          pause && f.reassuring.pause,
          ...timing,
          access && f.reassuring.access[access],
          traps > 0 && f.reassuring.traps(traps),
          f.reassuring.keep[r.cancel.confirmation ?? 'unknown'],
        ]
      : [
          f.neutral.rating(r.name, label, score, driver, low),
          r.no_working_exit && f.neutral.noExit,
          billers.length > 0 && f.neutral.billers(formatOr(billers, f)),
          ...timing,
          level && f.neutral.retention[level],
          pause && f.neutral.pause,
          r.cancel.confirmation && f.neutral.confirmation[r.cancel.confirmation],
          access && f.neutral.access[access],
          traps > 0 && f.neutral.traps(traps, r.traps.filter((x) => x.severity === 'high').length),
        ];
  return sentences.filter((s): s is string => typeof s === 'string' && s.length > 0).join(' ');
}
