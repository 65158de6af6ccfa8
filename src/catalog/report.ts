/**
 * The catalog report (`npm run catalog:report`): how much of the catalog rests on pages that
 * were read, how many records link straight to a cancel page, dated prices, exits, rights,
 * link checks, and sentences repeated across records (filler). Pure: the caller supplies the
 * records, the rights regions, the link-check summary and today.
 */
import type { ServiceRecord, Source } from './record.schema.ts';
import { isHomePage } from './validate.ts';

export interface LinkSummary {
  /** every distinct URL the link checker is meant to verify */
  total: number;
  /** URLs with at least one recorded check */
  checked: number;
  last_checked_at: string | null;
  /** the least recent of those checks: every checked link was verified since then */
  oldest_checked_at: string | null;
  outcomes: Record<string, number>;
}

export interface SharedSentence {
  sentence: string;
  records: number;
  examples: string[];
}

export interface CatalogReport {
  records: number;
  categories: Record<string, number>;
  /** every step cites a confirmed official help article (not a home page) */
  steps_on_read_help: number;
  /** at least one confirmed official page of any kind */
  any_read_official: number;
  direct_cancel_link: number;
  home_pages_as_evidence: number;
  prices: { total: number; undated: number; older_than_12_months: number };
  contacts: { phone: number; postal_mail: number; chat: number };
  rights_regions: string[];
  links: LinkSummary | null;
  /** why `links` is null, when the caller knows */
  links_unknown_reason?: string;
  /** the most-used list (catalog/most-used.json): how many rest on a read help article, and which do not */
  most_used?: { listed: number; on_read_help: number; not_on_read_help: string[] };
  /** exact sentences in five or more records */
  shared_sentences: SharedSentence[];
  /** the same with each record's own name masked: templated wording */
  templated_sentences: SharedSentence[];
}

export const SHARED_THRESHOLD = 5;

const isReadHelp = (s: Source | undefined) =>
  !!s && s.confirmed && s.kind === 'official_help' && !!s.url && !isHomePage(s.url);

/** Sentences of a text: split after . ! ? and before a new line; short fragments are not counted. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim().replace(/[.!?]+$/, ''))
    .filter((s) => s.length >= 12);
}

/** The free text a record says about cancelling: steps, traps, channel and contact notes, notes. */
export function recordTexts(r: ServiceRecord): string[] {
  const out: string[] = [];
  for (const s of r.steps) out.push(s.title, ...(s.detail ? [s.detail] : []));
  for (const t of r.traps) out.push(t.summary, ...(t.how_to_avoid ? [t.how_to_avoid] : []));
  for (const c of r.cancel.channels) if (c.note) out.push(c.note);
  for (const c of r.cancel.contacts ?? []) if (c.note) out.push(c.note);
  if (r.notes) out.push(r.notes);
  return out;
}

function mask(sentence: string, r: ServiceRecord): string {
  let out = sentence;
  for (const n of [r.name, ...r.aliases].sort((a, b) => b.length - a.length)) out = out.split(n).join('{service}');
  return out;
}

function shared(records: ServiceRecord[], key: (s: string, r: ServiceRecord) => string): SharedSentence[] {
  const by = new Map<string, Set<string>>();
  for (const r of records) {
    for (const t of recordTexts(r)) {
      for (const s of sentences(t)) {
        const k = key(s, r);
        const set = by.get(k) ?? new Set<string>();
        set.add(r.slug);
        by.set(k, set);
      }
    }
  }
  return [...by.entries()]
    .filter(([, slugs]) => slugs.size >= SHARED_THRESHOLD)
    .map(([sentence, slugs]) => ({ sentence, records: slugs.size, examples: [...slugs].sort().slice(0, 3) }))
    .sort((a, b) => b.records - a.records || a.sentence.localeCompare(b.sentence));
}

function monthsBetween(from: string, to: Date): number {
  const d = new Date(`${from}T00:00:00Z`);
  return (to.getUTCFullYear() - d.getUTCFullYear()) * 12 + (to.getUTCMonth() - d.getUTCMonth());
}

/** True when a price read on `asOf` is more than twelve months old on `today`. */
export function isStalePrice(asOf: string, today: Date): boolean {
  const m = monthsBetween(asOf, today);
  return m > 12 || (m === 12 && today.getUTCDate() > new Date(`${asOf}T00:00:00Z`).getUTCDate());
}

export function computeReport(
  records: ServiceRecord[],
  opts: {
    today: Date;
    rightsRegions?: string[];
    links?: LinkSummary | null;
    linksUnknownReason?: string;
    /** slugs of the most-used services, most used first */
    mostUsed?: string[];
  },
): CatalogReport {
  const categories: Record<string, number> = {};
  let stepsOnReadHelp = 0;
  const onReadHelp = new Set<string>();
  let anyRead = 0;
  let direct = 0;
  let homePages = 0;
  const prices = { total: 0, undated: 0, older_than_12_months: 0 };
  const contacts = { phone: 0, postal_mail: 0, chat: 0 };
  for (const r of records) {
    categories[r.category] = (categories[r.category] ?? 0) + 1;
    const byId = new Map(r.sources.map((s) => [s.id, s]));
    if (r.steps.every((st) => st.source_ids.some((id) => isReadHelp(byId.get(id))))) {
      stepsOnReadHelp++;
      onReadHelp.add(r.slug);
    }
    if (r.sources.some((s) => s.confirmed && s.kind.startsWith('official_'))) anyRead++;
    if (r.cancel.url && !isHomePage(r.cancel.url)) direct++;
    homePages += r.sources.filter((s) => s.confirmed && s.url && isHomePage(s.url)).length;
    for (const p of r.plans) {
      if (!p.price) continue;
      prices.total++;
      if (!p.price.as_of || !p.price.source_id) prices.undated++;
      else if (isStalePrice(p.price.as_of, opts.today)) prices.older_than_12_months++;
    }
    for (const c of r.cancel.contacts ?? []) contacts[c.type]++;
  }
  return {
    records: records.length,
    categories,
    steps_on_read_help: stepsOnReadHelp,
    any_read_official: anyRead,
    direct_cancel_link: direct,
    home_pages_as_evidence: homePages,
    prices,
    contacts,
    rights_regions: [...(opts.rightsRegions ?? [])].sort(),
    links: opts.links ?? null,
    ...(opts.linksUnknownReason ? { links_unknown_reason: opts.linksUnknownReason } : {}),
    ...(opts.mostUsed
      ? {
          most_used: {
            listed: opts.mostUsed.length,
            on_read_help: opts.mostUsed.filter((s) => onReadHelp.has(s)).length,
            not_on_read_help: opts.mostUsed.filter((s) => !onReadHelp.has(s)),
          },
        }
      : {}),
    shared_sentences: shared(records, (s) => s),
    templated_sentences: shared(records, mask),
  };
}

const pct = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(1)}%` : '—');

/** The report's line on link checks. */
export function formatLinks(l: LinkSummary | null, unknownReason?: string): string {
  if (!l) return `links checked: unknown (${unknownReason ?? 'no link-check results available to this run'})`;
  if (!l.checked) return `links checked: 0 of ${l.total} (no check recorded yet)`;
  const outcomes = Object.entries(l.outcomes)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([o, n]) => `${o} ${n}`)
    .join(', ');
  return `links checked: ${l.checked} of ${l.total} (${pct(l.checked, l.total)}), between ${l.oldest_checked_at} and ${l.last_checked_at}: ${outcomes}`;
}

export function formatReport(r: CatalogReport): string {
  const lines = [
    `records: ${r.records} in ${Object.keys(r.categories).length} categories`,
    `  per category: ${Object.entries(r.categories)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([c, n]) => `${c} ${n}`)
      .join(', ')}`,
    `steps resting on a read official help article: ${r.steps_on_read_help} (${pct(r.steps_on_read_help, r.records)})`,
    ...(r.most_used
      ? [
          `top ${r.most_used.listed} resting on a read official help article: ${r.most_used.on_read_help}/${r.most_used.listed}`,
          ...(r.most_used.not_on_read_help.length ? [`  not yet: ${r.most_used.not_on_read_help.join(', ')}`] : []),
        ]
      : []),
    `records with any read official page: ${r.any_read_official} (${pct(r.any_read_official, r.records)})`,
    `home pages counted as evidence: ${r.home_pages_as_evidence}`,
    `direct cancel link: ${r.direct_cancel_link} (${pct(r.direct_cancel_link, r.records)})`,
    `prices: ${r.prices.total} dated and sourced, ${r.prices.undated} undated, ${r.prices.older_than_12_months} older than 12 months`,
    `exits from official pages: ${r.contacts.phone} phone, ${r.contacts.postal_mail} postal, ${r.contacts.chat} chat`,
    `rights sections: ${r.rights_regions.length ? r.rights_regions.join(', ') : 'none'}`,
    formatLinks(r.links, r.links_unknown_reason),
    `sentences shared by ${SHARED_THRESHOLD}+ records: ${r.shared_sentences.length}`,
    ...r.shared_sentences.map((s) => `  ${s.records}× "${s.sentence}" (${s.examples.join(', ')}…)`),
    `templated sentences (service name masked) in ${SHARED_THRESHOLD}+ records: ${r.templated_sentences.length}`,
    ...r.templated_sentences.map((s) => `  ${s.records}× "${s.sentence}" (${s.examples.join(', ')}…)`),
  ];
  return `${lines.join('\n')}\n`;
}
