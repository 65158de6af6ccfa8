/**
 * The cf-1.0 rubric (docs/friction.md, "Rubric"): each axis
 * is scored 0–10 from the record's facts only. A rule that fires records a factor code;
 * the explanation shown to people is built from those codes, so "why" can always name
 * the facts behind a number. Unknown facts score a stated, modest default and say so.
 */
import type { ServiceRecord } from '../record.schema.ts';
import type { Axis } from '../vocabulary.ts';
import { durationDays } from './duration.ts';

export interface AxisResult {
  score: number;
  factors: string[];
  source_ids: string[];
}

class Scorer {
  score = 0;
  factors: string[] = [];
  /** raise the score to at least `to`, recording why */
  atLeast(to: number, factor: string) {
    this.factors.push(factor);
    if (to > this.score) this.score = to;
  }
  add(n: number, factor: string) {
    this.factors.push(factor);
    this.score = Math.min(10, this.score + n);
  }
  result(sourceIds: string[]): AxisResult {
    return { score: Math.round(this.score), factors: this.factors, source_ids: [...new Set(sourceIds)] };
  }
}

const trapsOn = (r: ServiceRecord, axis: Axis) => r.traps.filter((t) => t.axis === axis);
const trapSources = (r: ServiceRecord, axis: Axis) => trapsOn(r, axis).flatMap((t) => t.source_ids);
const SELF_SERVE = new Set(['web_self_serve', 'app_self_serve', 'app_store']);

export function scorePath(r: ServiceRecord): AxisResult {
  const c = r.cancel;
  const s = new Scorer();
  if (c.clicks === null) {
    if (c.deep_link) s.atLeast(1, 'path:deep_link');
    else s.atLeast(3, 'path:clicks_unknown');
  } else if (c.clicks <= 2 && c.deep_link) s.atLeast(0, 'path:deep_link_few_clicks');
  else if (c.clicks <= 4) s.atLeast(2, `path:clicks_${c.clicks}`);
  else if (c.clicks <= 8) s.atLeast(5, `path:clicks_${c.clicks}`);
  else if (c.clicks <= 10) s.atLeast(6, `path:clicks_${c.clicks}`);
  else s.atLeast(8, `path:clicks_${c.clicks}`);
  if (!c.channels.some((ch) => SELF_SERVE.has(ch.type))) s.atLeast(3, 'path:no_self_serve');
  if (c.hidden) s.atLeast(8, 'path:hidden');
  const appSignup = c.signup_channels.includes('app');
  const appCancel = c.surfaces.includes('ios') || c.surfaces.includes('android');
  if (appSignup && !appCancel && c.surfaces.includes('web')) s.add(2, 'path:web_only_cancel');
  if (c.billing_routes.length >= 2) s.add(1, 'path:several_billing_routes');
  const types = new Set(trapsOn(r, 'path').map((t) => t.type));
  if (types.has('loop')) s.atLeast(8, 'path:loop');
  return s.result([...c.source_ids, ...trapSources(r, 'path')]);
}

const CHANNEL_BASE: Record<string, number> = {
  web_self_serve: 0,
  app_self_serve: 0,
  app_store: 1,
  partner: 4,
  chatbot: 5,
  chat_agent: 5,
  web_form: 5,
  email: 5,
  phone: 8,
  in_person: 8,
  postal_mail: 8,
  certified_mail: 9,
};

export function scoreChannel(r: ServiceRecord): AxisResult {
  const c = r.cancel;
  const s = new Scorer();
  const types = [...new Set(c.channels.map((ch) => ch.type))];
  const best = types.reduce((a, t) => Math.min(a, CHANNEL_BASE[t] ?? 10), 10);
  const bestTypes = types.filter((t) => CHANNEL_BASE[t] === best);
  if (types.every((t) => t === 'in_person' || t === 'certified_mail')) {
    s.atLeast(10, `channel:only_${types.join('_or_')}`);
  } else {
    s.atLeast(best, `channel:${bestTypes.join('_or_')}`);
  }
  if (best <= 1) {
    if (c.confirmation === 'none') s.add(2, 'channel:no_confirmation');
    else if (c.confirmation === 'on_screen') s.add(1, 'channel:on_screen_confirmation_only');
    else if (c.confirmation === null) s.add(1, 'channel:confirmation_unknown');
  }
  for (const t of trapsOn(r, 'channel')) {
    if (t.type === 'limited_hours') s.add(1, 'channel:limited_hours');
    if (t.type === 'no_confirmation' && c.confirmation !== 'none') s.add(1, 'channel:no_confirmation');
  }
  return s.result([...c.channels.flatMap((ch) => ch.source_ids), ...trapSources(r, 'channel')]);
}

const RETENTION_BASE = { none: 0, one_optional: 2, several: 5, mandatory_agent: 8, deceptive: 10 } as const;

export function scoreRetention(r: ServiceRecord): AxisResult {
  const s = new Scorer();
  const level = r.retention.level;
  if (level === null) s.atLeast(2, 'retention:unknown');
  else s.atLeast(RETENTION_BASE[level], `retention:${level}`);
  const types = trapsOn(r, 'retention').map((t) => t.type);
  if (types.includes('deceptive_completion')) s.atLeast(10, 'retention:deceptive_completion');
  if (types.includes('confirmshaming') || types.includes('misdirection')) s.atLeast(8, 'retention:confirmshaming');
  if (types.includes('agent_retention_script')) s.atLeast(8, 'retention:agent_script');
  const screens = types.filter((t) => ['save_offer', 'pause_push', 'downgrade_push', 'survey_gate'].includes(t)).length;
  if (screens >= 2) s.atLeast(5, 'retention:several_offer_screens');
  else if (screens === 1) s.atLeast(2, 'retention:one_offer_screen');
  return s.result([...r.retention.source_ids, ...trapSources(r, 'retention')]);
}

export function scoreTiming(r: ServiceRecord): AxisResult {
  const t = r.timing;
  const s = new Scorer();
  if (!t.known) {
    s.atLeast(3, 'timing:unknown');
    return s.result(t.source_ids);
  }
  const commitment = durationDays(t.commitment) ?? 0;
  const notice = durationDays(t.notice_period) ?? 0;
  const cutoff = durationDays(t.cutoff) ?? 0;
  if (commitment === 0 && notice === 0 && cutoff === 0) s.atLeast(0, 'timing:month_to_month');
  if (cutoff > 0) s.atLeast(cutoff <= 2 ? 2 : 5, cutoff <= 2 ? 'timing:short_cutoff' : 'timing:long_cutoff');
  if (r.cancel.access_after_cancel === 'immediate') s.atLeast(2, 'timing:access_ends_immediately');
  if (t.trial_converts) s.atLeast(2, 'timing:trial_converts');
  if (notice > 0) s.atLeast(notice >= 30 ? 5 : 3, notice >= 30 ? 'timing:notice_30_days_plus' : 'timing:notice_period');
  if (commitment >= 360) {
    s.atLeast(5, 'timing:annual_commitment');
    if (t.renews_for_fixed_term && notice >= 30) s.atLeast(8, 'timing:fixed_term_renewal_with_notice');
    if (commitment >= 720 && notice >= 90) s.atLeast(10, 'timing:long_lock_in');
  } else if (commitment > 31) s.atLeast(3, 'timing:minimum_term');
  for (const trap of trapsOn(r, 'timing')) {
    if (trap.type === 'no_reminder' || trap.type === 'price_increase_on_renewal') s.add(1, `timing:${trap.type}`);
  }
  return s.result([...t.source_ids, ...trapSources(r, 'timing')]);
}

const VERIFY_BASE: Record<string, number> = {
  session: 0,
  reauth: 2,
  otp: 2,
  holder_only: 2,
  manager_only: 2,
  account_pin: 5,
  security_questions: 5,
  settle_balance: 5,
  equipment_return: 5,
  residency: 5,
  document_proof: 8,
  signature: 8,
};

export function scoreVerification(r: ServiceRecord): AxisResult {
  const s = new Scorer();
  const req = r.verification.requires;
  if (req === null) s.atLeast(1, 'verification:unknown');
  else {
    for (const q of req) s.atLeast(VERIFY_BASE[q] ?? 0, `verification:${q}`);
    const heavy = req.filter((q) => (VERIFY_BASE[q] ?? 0) >= 2).length;
    if (heavy >= 3) s.add(1, 'verification:several_requirements');
  }
  if (trapsOn(r, 'verification').some((t) => t.type === 'region_gated')) s.atLeast(5, 'verification:region_gated');
  return s.result([...r.verification.source_ids, ...trapSources(r, 'verification')]);
}

const FEE_BASE = {
  cancellation_fee: 5,
  equipment_nonreturn: 5,
  etf: 8,
  buyout: 8,
  device_balance: 8,
  remaining_term: 10,
} as const;

export function scoreCost(r: ServiceRecord): AxisResult {
  const c = r.cost;
  const s = new Scorer();
  if (!c.known) {
    s.atLeast(3, 'cost:unknown');
    return s.result(c.source_ids);
  }
  if (c.refund === 'prorated') s.atLeast(0, 'cost:prorated_refund');
  else if (c.refund === 'full_within_window') s.atLeast(1, 'cost:refund_window');
  else s.atLeast(2, c.refund === null ? 'cost:refund_unknown' : `cost:refund_${c.refund}`);
  if (r.cancel.access_after_cancel === 'immediate' && c.refund !== 'prorated') s.atLeast(3, 'cost:paid_time_lost');
  if (c.forfeits.length) s.atLeast(5, 'cost:forfeits_prepaid_value');
  for (const fee of c.fees) {
    s.atLeast(FEE_BASE[fee.kind], `cost:fee_${fee.kind}`);
    if (fee.disclosed_at === 'cancel_only') s.atLeast(8, 'cost:fee_revealed_at_cancel');
  }
  if (trapsOn(r, 'cost').some((t) => t.type === 'fee_revealed_at_cancel')) s.atLeast(8, 'cost:fee_revealed_at_cancel');
  return s.result([...c.source_ids, ...c.fees.flatMap((f) => f.source_ids), ...trapSources(r, 'cost')]);
}

export const RUBRIC: Record<Axis, (r: ServiceRecord) => AxisResult> = {
  path: scorePath,
  channel: scoreChannel,
  retention: scoreRetention,
  timing: scoreTiming,
  verification: scoreVerification,
  cost: scoreCost,
};
