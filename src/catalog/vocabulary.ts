/**
 * The closed vocabularies of a catalog record (docs/catalog.md; snake_case on the wire),
 * trimmed to what the friction rubric (./friction) actually reads.
 */
import { z } from 'zod';

export const CATEGORY_SLUGS = [
  'streaming-video',
  'live-tv-sports',
  'music-audio',
  'news',
  'magazines-aggregators',
  'software-ai',
  'productivity',
  'cloud-storage',
  'vpn-security',
  'gaming',
  'fitness-apps',
  'gyms',
  'food-delivery',
  'shopping',
  'dating',
  'telecom',
  'education',
  'finance-identity',
  'kids-family',
  'health-wellness',
] as const;
export const CategorySlug = z.enum(CATEGORY_SLUGS);

export const AXES = ['path', 'channel', 'retention', 'timing', 'verification', 'cost'] as const;
export const Axis = z.enum(AXES);
export type Axis = z.infer<typeof Axis>;

/** How a person can end the contract. Order is from least to most effort. */
export const ChannelType = z.enum([
  'web_self_serve',
  'app_self_serve',
  'app_store',
  'partner',
  'chatbot',
  'chat_agent',
  'web_form',
  'email',
  'phone',
  'in_person',
  'postal_mail',
  'certified_mail',
]);
export type ChannelType = z.infer<typeof ChannelType>;

export const SignupChannel = z.enum(['web', 'app', 'phone', 'in_person', 'partner']);

export const BillingRoute = z.enum([
  'direct',
  'apple',
  'google',
  'amazon',
  'roku',
  'carrier',
  'bundle',
  'paypal',
  'other',
]);

export const Surface = z.enum(['web', 'ios', 'android', 'tv', 'desktop_app', 'phone', 'in_person', 'mail']);

export const RetentionLevel = z.enum([
  'none', // no offer, neutral wording, one confirmation
  'one_optional', // one offer or survey beside an equally visible "continue"
  'several', // two or more interstitials (offer, pause, survey) each needing a click
  'mandatory_agent', // a live retention pitch by an agent is part of the only path
  'deceptive', // the flow can end paused/downgraded instead of cancelled
]);

export const VerificationRequirement = z.enum([
  'session',
  'reauth',
  'otp',
  'account_pin',
  'security_questions',
  'holder_only',
  'manager_only',
  'settle_balance',
  'equipment_return',
  'residency',
  'document_proof',
  'signature',
]);

export const FeeKind = z.enum([
  'etf',
  'buyout',
  'cancellation_fee',
  'device_balance',
  'equipment_nonreturn',
  'remaining_term',
]);

export const RefundPolicy = z.enum(['prorated', 'full_within_window', 'case_by_case', 'none']);

export const SourceKind = z.enum([
  'official_help',
  'official_terms',
  'official_page',
  'official_forum',
  'regulator',
  'court',
  'legislation',
  /** a public-law body that is not a regulator: a chamber of commerce, a state's service portal */
  'public_body',
  /** a consumer organisation such as a Verbraucherzentrale (advice and complaints, not a public body) */
  'consumer_body',
  'news',
  'third_party_index',
  'third_party_guide',
]);

export const StepKind = z.enum([
  'sign_in',
  'navigate',
  'click',
  'verify',
  'decline_offer',
  'survey',
  'review_fee',
  'confirm',
  'call',
  'chat',
  'send_email',
  'send_letter',
  'visit',
  'return_equipment',
  'check',
]);

export const TrapType = z.enum([
  // path
  'hidden_cancel',
  'web_only_cancel',
  'loop',
  'billing_route_confusion',
  'delete_is_not_cancel',
  // channel
  'phone_only',
  'chat_required',
  'in_person_only',
  'mail_only',
  'no_confirmation',
  'limited_hours',
  // retention
  'save_offer',
  'pause_push',
  'downgrade_push',
  'survey_gate',
  'confirmshaming',
  'misdirection',
  'agent_retention_script',
  'deceptive_completion',
  // timing
  'notice_period',
  'minimum_term',
  'auto_renew_long_term',
  'billing_cutoff',
  'trial_conversion',
  'immediate_access_loss',
  'no_reminder',
  'price_increase_on_renewal',
  // verification
  'reauth',
  'holder_only',
  'manager_only',
  'document_proof',
  'precondition',
  'region_gated',
  // cost
  'early_termination_fee',
  'buyout_fee',
  'cancellation_fee',
  'device_balance',
  'equipment_return',
  'forfeit_credits',
  'no_refund',
  'fee_revealed_at_cancel',
]);

/**
 * Where a cancel URL may live besides the service's own domains: the billing
 * platforms that run the subscription when it was bought through them.
 */
export const BILLING_PLATFORM_DOMAINS = [
  'apple.com',
  'google.com',
  'play.google.com',
  'amazon.com',
  'roku.com',
  'paypal.com',
] as const;
