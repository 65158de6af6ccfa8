/**
 * The catalog record as it is written in catalog/services/<slug>.json.
 *
 * Rules that keep the data honest (docs/catalog.md):
 * - a fact nobody could confirm is `null` (unknown), never a guess;
 * - every fact block names the sources it rests on (`source_ids`), and every source
 *   says whether its page was read and confirmed (`confirmed`);
 * - URLs sit on the service's own domains (or its billing platform); a phone number or a
 *   postal address appears only as a contact resting on an official page that was read.
 * Cross-field rules (ids that must exist, domains, uniqueness) live in validate.ts.
 */
import { z } from 'zod';
import {
  Axis,
  BillingRoute,
  CategorySlug,
  ChannelType,
  FeeKind,
  RefundPolicy,
  RetentionLevel,
  SignupChannel,
  SourceKind,
  StepKind,
  Surface,
  TrapType,
  VerificationRequirement,
} from './vocabulary.ts';

/** ISO 8601 duration, e.g. P1M, P1Y, P30D, PT48H. */
export const Duration = z
  .string()
  .regex(/^P(?=\d|T\d)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(\d+H)?(\d+M)?)?$/, 'an ISO 8601 duration such as P1M or PT48H');

export const Slug = z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'lower-case words joined by hyphens');
const Domain = z
  .string()
  .regex(/^(?!www\.)([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$/, 'a bare lower-case domain without www.');
const HttpsUrl = z.url({ protocol: /^https$/, hostname: z.regexes.domain });
/** A page that was read: kept exactly as read, so a stored copy served over http stays as it was. */
const PageUrl = z.url({ protocol: /^https?$/, hostname: z.regexes.domain });
const SourceId = z.string().regex(/^s\d+$/, 'a source id such as s1');
const SourceIds = z.array(SourceId).min(1);
const Text = z.string().trim().min(3).max(600);
export const Day = z.iso.date();

export const SourceSchema = z.strictObject({
  id: SourceId,
  kind: SourceKind,
  publisher: z.string().min(2),
  /** the page title as read; required when confirmed */
  title: z.string().min(3).optional(),
  /** the page exactly as read (a confirmed source), or where it is believed to be */
  url: PageUrl.nullable(),
  /** true only when this page was read and its text states the facts that cite it */
  confirmed: z.boolean(),
  /** the day the page was read; null when it was not */
  read_at: Day.nullable(),
  /** why the source is not confirmed (e.g. "help centre named on the home page; the article was not available to read") */
  via: z.string().min(3).optional(),
  note: z.string().optional(),
});

/**
 * A way out besides the web: a phone line, a postal address, a chat. Only from an official
 * page that was read (validate.ts), because searches for "cancel X" are full of scam numbers.
 */
export const ContactSchema = z.strictObject({
  type: z.enum(['phone', 'postal_mail', 'chat']),
  /** the number exactly as the official page gives it */
  phone: z.string().min(6).max(40).optional(),
  /** opening hours as stated on the page; null when the page read did not state them */
  hours: z.string().min(3).nullable().optional(),
  /** the postal address, one line per element */
  address: z.array(z.string().min(2)).min(2).optional(),
  /** where the chat (or the contact page) is */
  url: HttpsUrl.optional(),
  /** whom the contact is for, when the page limits it (e.g. "UK customers") */
  audience: z.string().min(2).optional(),
  note: z.string().min(3).optional(),
  source_ids: SourceIds,
});

export const ChannelSchema = z.strictObject({
  type: ChannelType,
  note: z.string().min(3).optional(),
  source_ids: SourceIds,
});

export const CancelSchema = z.strictObject({
  /** page holding the cancel control, on an official domain; null when unknown */
  url: HttpsUrl.nullable(),
  /** official help article on cancelling; null when unknown */
  help_url: HttpsUrl.nullable(),
  channels: z.array(ChannelSchema).min(1),
  signup_channels: z.array(SignupChannel).min(1),
  billing_routes: z.array(BillingRoute).min(1),
  /** where the cancel flow works (compared with where one can subscribe) */
  surfaces: z.array(Surface).min(1),
  deep_link: z.boolean().nullable(),
  /** clicks from the signed-in home to the confirmation */
  clicks: z.int().min(1).max(40).nullable(),
  hidden: z.boolean().nullable(),
  confirmation: z.enum(['email', 'on_screen', 'letter', 'none']).nullable(),
  access_after_cancel: z.enum(['until_period_end', 'immediate']).nullable(),
  pause_available: z.boolean().nullable(),
  /** phone lines, postal addresses and chats from the official pages read */
  contacts: z.array(ContactSchema).optional(),
  source_ids: SourceIds,
});

export const RetentionSchema = z.strictObject({
  level: RetentionLevel.nullable(),
  source_ids: SourceIds,
});

export const TimingSchema = z.strictObject({
  /** minimum term of the usual plan; null = month to month or unknown (see `known`) */
  commitment: Duration.nullable(),
  notice_period: Duration.nullable(),
  /** how long before renewal/shipment a cancellation must arrive */
  cutoff: Duration.nullable(),
  renews_for_fixed_term: z.boolean().nullable(),
  trial_converts: z.boolean().nullable(),
  /** false when the terms of the usual plan were not established */
  known: z.boolean(),
  source_ids: SourceIds,
});

export const VerificationSchema = z.strictObject({
  /** null when unknown; ["session"] when being signed in is enough */
  requires: z.array(VerificationRequirement).min(1).nullable(),
  source_ids: SourceIds,
});

export const FeeSchema = z.strictObject({
  kind: FeeKind,
  description: Text,
  disclosed_at: z.enum(['signup', 'terms_only', 'cancel_only']).nullable(),
  source_ids: SourceIds,
});

export const CostSchema = z.strictObject({
  fees: z.array(FeeSchema),
  refund: RefundPolicy.nullable(),
  refund_window_days: z.int().min(1).max(365).nullable(),
  forfeits: z.array(z.string().min(3)),
  /** false when fees and refunds were not established */
  known: z.boolean(),
  source_ids: SourceIds,
});

/** A price is kept only with the day it was read and the confirmed official source that states it. */
export const PriceSchema = z.strictObject({
  amount_minor: z.int().min(0),
  currency: z.string().regex(/^[A-Z]{3}$/),
  as_of: Day,
  source_id: SourceId,
});

export const PlanSchema = z.strictObject({
  name: z.string().min(2),
  price: PriceSchema.nullable(),
  billing_period: Duration,
  commitment: Duration.nullable(),
});

export const StepSchema = z.strictObject({
  title: z.string().trim().min(3).max(160),
  detail: Text.optional(),
  surface: Surface,
  kind: StepKind,
  url: HttpsUrl.nullable().optional(),
  trap_ids: z.array(Slug).optional(),
  source_ids: SourceIds,
});

export const TrapSchema = z.strictObject({
  id: Slug,
  type: TrapType,
  axis: Axis,
  severity: z.enum(['low', 'medium', 'high']),
  summary: Text,
  how_to_avoid: Text.optional(),
  source_ids: SourceIds,
});

export const ServiceRecordSchema = z.strictObject({
  schema_version: z.literal('1.1'),
  slug: Slug,
  name: z.string().trim().min(2).max(80),
  aliases: z.array(z.string().trim().min(2)),
  category: CategorySlug,
  /** primary market the facts describe: ISO 3166-1 alpha-2, or EU / GLOBAL */
  region: z.string().regex(/^([A-Z]{2}|EU|GLOBAL)$/),
  /** BCP 47 language of steps and traps */
  locale: z.string().regex(/^[a-z]{2}(-[A-Z]{2})?$/),
  website: HttpsUrl,
  domains: z.strictObject({
    web: z.array(Domain).min(1),
    /** domains receipts and renewal notices are sent from */
    email: z.array(Domain),
  }),
  cancel: CancelSchema,
  retention: RetentionSchema,
  timing: TimingSchema,
  verification: VerificationSchema,
  cost: CostSchema,
  /** documented: there is no way out short of disputing the charge */
  no_working_exit: z.boolean(),
  plans: z.array(PlanSchema).min(1),
  steps: z.array(StepSchema).min(2),
  traps: z.array(TrapSchema),
  sources: z.array(SourceSchema).min(1),
  notes: z.string().optional(),
  /** set by the link checker; null until a check ran */
  last_verified: z.null(),
});

export type ServiceRecord = z.infer<typeof ServiceRecordSchema>;
export type Source = z.infer<typeof SourceSchema>;
export type Contact = z.infer<typeof ContactSchema>;
export type Price = z.infer<typeof PriceSchema>;
