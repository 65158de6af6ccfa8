/**
 * Words for the catalog's closed vocabularies, as a person reads them on a service page.
 * The axis phrases come from the English guide framing so the page and the guide agree.
 */
import type { z } from 'zod';
import { type Tier, tierOf } from '../../catalog/friction/compute.ts';
import type { Category } from '../../catalog/load.ts';
import type { PlanSchema } from '../../catalog/record.schema.ts';
import type { Axis } from '../../catalog/vocabulary.ts';
import { en } from '../../guidance/guide/locales/en.ts';
import { formatDuration } from '../../guidance/guide/locales.ts';
import { html, type SafeHtml } from '../html.ts';
import { type BadgeSpan, verdictSpans, TIER_LABEL as WORDS_TIER_LABEL } from '../shared/words.ts';

// every tier has its word (checked here, where the vocabulary is known)
export const TIER_LABEL: Record<Tier, string> = WORDS_TIER_LABEL satisfies Record<Tier, string>;

/**
 * The tier word and the score a person sees, always together and always from one number: the
 * tier is computed from the score as shown (one decimal), by the rubric's own thresholds
 * (docs/friction.md), so the word can never disagree with the number beside it.
 */
export function verdict(difficulty: number): { tier: Tier; label: string; score: string } {
  const shown = Math.round(difficulty * 10) / 10;
  const tier = tierOf(shown);
  return { tier, label: TIER_LABEL[tier], score: shown.toFixed(1) };
}

const spanHtml = (s: BadgeSpan): SafeHtml =>
  html`<span class="${s.className}">${s.parts.map((p) => (typeof p === 'string' ? p : spanHtml(p)))}</span>`;

/** "Hard 5.0/10", as one badge (shared/words.ts verdictSpans: the browser tool shows the same). */
export function verdictBadge(difficulty: number): SafeHtml {
  const v = verdict(difficulty);
  return spanHtml(verdictSpans(v.tier, Number(v.score)));
}

export const AXIS_LABEL: Record<Axis, string> = {
  path: 'Path',
  channel: 'Channel',
  retention: 'Retention',
  timing: 'Timing',
  verification: 'Verification',
  cost: 'Cost',
};

/** "finding the way to cancel", … */
export const axisMeaning = (a: Axis) => en.axis[a];

export const CHANNEL_LABEL: Record<string, string> = {
  web_self_serve: 'Online, in your account',
  app_self_serve: 'In the app',
  app_store: 'Through the app store that bills you',
  partner: 'Through the partner that bills you',
  chatbot: 'Chatbot',
  chat_agent: 'Live chat with an agent',
  web_form: 'Web form',
  email: 'Email',
  phone: 'Phone call',
  in_person: 'In person',
  postal_mail: 'Letter',
  certified_mail: 'Certified letter',
};

export const REQUIREMENT_LABEL: Record<string, string> = {
  session: 'being signed in',
  reauth: 'signing in again',
  otp: 'a one-time code',
  account_pin: 'an account PIN',
  security_questions: 'security questions',
  holder_only: 'the account holder in person',
  manager_only: 'the account manager',
  settle_balance: 'paying any balance first',
  equipment_return: 'returning equipment',
  residency: 'proof of residence',
  document_proof: 'documents',
  signature: 'a signature',
};

export const REFUND_LABEL: Record<string, string> = {
  prorated: 'Prorated refund for unused time',
  full_within_window: 'Full refund within a window',
  case_by_case: 'Refunds case by case',
  none: 'No refund',
};

export const SEVERITY_LABEL: Record<string, string> = { low: 'Low', medium: 'Medium', high: 'High' };

export const SOURCE_KIND_LABEL: Record<string, string> = {
  official_help: 'Official help',
  official_terms: 'Official terms',
  official_page: 'Official page',
  official_forum: 'Official forum',
  regulator: 'Regulator',
  court: 'Court',
  legislation: 'Law',
  public_body: 'Public body',
  consumer_body: 'Consumer organisation',
  news: 'News',
  third_party_index: 'Third-party index',
  third_party_guide: 'Third-party guide',
};

export const duration = (iso: string | null) => (iso ? (formatDuration(iso, en) ?? iso) : null);

const PERIOD: Record<string, string> = { P1M: 'month', P1Y: 'year', P1W: 'week', P3M: 'quarter', P12M: 'year' };

/** "$15.49 per month (unverified, as of 2026-06)" or "unknown" */
export function priceText(plan: z.infer<typeof PlanSchema>): string {
  const p = plan.price;
  if (!p) return 'unknown';
  const amount = new Intl.NumberFormat('en-US', { style: 'currency', currency: p.currency }).format(
    p.amount_minor / 100,
  );
  const per = PERIOD[plan.billing_period] ?? duration(plan.billing_period);
  return `${amount} per ${per}`;
}

export const categoryName = (categories: Category[], slug: string) =>
  categories.find((c) => c.slug === slug)?.name ?? slug;
