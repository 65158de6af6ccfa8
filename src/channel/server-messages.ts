/**
 * Server → client messages of the /ws protocol (docs/websocket.md). The server's `send`
 * accepts only `ServerMessage`; the browser reads these same types; the tests' client parses
 * every frame it receives with this schema.
 */
import { z } from 'zod';
import { Audit } from '../audit/schema.ts';
import { ONE_CLICK_WITHHELD } from '../mailbox/one-click-evidence.ts';
import { WS_ERROR_CODES } from './errors.ts';
import { Subscription, Verification } from './wire-subscription.ts';

const Iso = z.string();
const Count = z.int().nonnegative();

export const ReadyMessage = z.strictObject({
  type: z.literal('ready'),
  protocol: z.string(),
  daily_limit: Count,
  /** a secret: whoever holds it can act with this session's sign-in; never in a URL */
  session: z.string(),
  /** the session's hard limit */
  expires_at: Iso,
});
export type ReadyMessage = z.infer<typeof ReadyMessage>;

export const ResumedMessage = z.strictObject({
  type: z.literal('resumed'),
  session: z.string(),
  expires_at: Iso,
  /** what the session is doing right now */
  running: z.enum(['scan', 'unsubscribe', 'audit']).nullable(),
});
export type ResumedMessage = z.infer<typeof ResumedMessage>;

export const QuotaStatusMessage = z.strictObject({
  type: z.literal('quota'),
  email: z.string(),
  scans_left: Count,
  resets_at: Iso,
});
export type QuotaStatusMessage = z.infer<typeof QuotaStatusMessage>;

/** The scan's phases, and `audit` while an audit reads receipts (done/total: receipts read). */
export const ScanPhase = z.enum(['connecting', 'listing', 'searching', 'fetching', 'finishing', 'audit']);

export const ProgressMessage = z.strictObject({
  type: z.literal('progress'),
  phase: ScanPhase,
  done: Count,
  total: Count,
  /** the folder being read */
  mailbox: z.string().optional(),
});
export type ProgressMessage = z.infer<typeof ProgressMessage>;

export const SubscriptionMessage = z.strictObject({ type: z.literal('subscription'), subscription: Subscription });
export type SubscriptionMessage = z.infer<typeof SubscriptionMessage>;

export const DoneMessage = z.strictObject({
  type: z.literal('done'),
  scanned: Count,
  subscriptions: Count,
  duration_ms: Count,
  cancelled: z.boolean(),
  /** every folder read, in order, with the messages read in it (within `since`) */
  mailboxes: z.array(z.strictObject({ path: z.string(), messages: Count })),
  /**
   * the bounds this scan reached (docs/websocket.md): `messages` read per scan (count: messages
   * not read, the oldest), `header_bytes` per message (count: messages whose header fields were
   * cut), `subscriptions` kept (count: messages of lists not kept); empty when none
   */
  capped: z.array(
    z.strictObject({ cap: z.enum(['messages', 'header_bytes', 'subscriptions']), limit: Count, count: Count }),
  ),
  verification: z.array(z.strictObject({ list_key: z.string(), at: Iso, status: Verification })),
});
export type DoneMessage = z.infer<typeof DoneMessage>;

const UnsubscribeStatus = z.enum(['unsubscribed', 'email_sent', 'open_link', 'skipped', 'failed']);
const UnsubscribeMethod = z.enum(['one_click', 'mailto', 'link']);

/** One method tried for a subscription and how it ended (protocol 2.3; docs/unsubscribe.md "Statuses"). */
export const UnsubscribeAttempt = z.strictObject({
  method: UnsubscribeMethod,
  outcome: z.enum([
    'ok',
    'not_https',
    'blocked',
    'timeout',
    'network',
    'tls',
    'dns',
    'rejected',
    'auth',
    'connect',
    'no_smtp',
  ]),
  /** the HTTP status of the sender's answer to a one-click POST, when one came */
  http_status: z.int().min(100).max(599).optional(),
});

export const UnsubscribeResultMessage = z.strictObject({
  type: z.literal('unsubscribe_result'),
  id: z.string(),
  status: UnsubscribeStatus,
  method: UnsubscribeMethod.nullable(),
  /** the page to open, for `open_link` */
  url: z.string().optional(),
  detail: z.string(),
  dry_run: z.boolean(),
  archived: Count.optional(),
  /** the sender offered one-click but it was not used, and why (the reason also leads `detail`) */
  one_click_withheld: z.enum(ONE_CLICK_WITHHELD).optional(),
  /** each method tried, in order; absent in a dry run, for a skip, and for an id not sent */
  attempts: z.array(UnsubscribeAttempt).optional(),
});
export type UnsubscribeResultMessage = z.infer<typeof UnsubscribeResultMessage>;

export const UnsubscribeDoneMessage = z.strictObject({
  type: z.literal('unsubscribe_done'),
  total: Count,
  dry_run: z.boolean(),
  duration_ms: Count,
  counts: z.strictObject({
    unsubscribed: Count,
    email_sent: Count,
    open_link: Count,
    skipped: Count,
    failed: Count,
  }),
  archived: Count,
});
export type UnsubscribeDoneMessage = z.infer<typeof UnsubscribeDoneMessage>;

/** The audit of the session's last scan (docs/audit.md); `cancelled`: stopped early, from what was read. */
export const AuditResultMessage = z.strictObject({ type: z.literal('audit'), audit: Audit, cancelled: z.boolean() });
export type AuditResultMessage = z.infer<typeof AuditResultMessage>;

export const ErrorMessage = z.strictObject({
  type: z.literal('error'),
  code: z.enum(WS_ERROR_CODES),
  message: z.string(),
  /** SCAN_QUOTA_EXCEEDED: when the allowance resets */
  resets_at: Iso.optional(),
  /** TOO_MANY_*: seconds until the limit lets the same request through */
  retry_after: Count.optional(),
});
export type ErrorMessage = z.infer<typeof ErrorMessage>;

export const ServerMessage = z.discriminatedUnion('type', [
  ReadyMessage,
  ResumedMessage,
  QuotaStatusMessage,
  ProgressMessage,
  SubscriptionMessage,
  DoneMessage,
  UnsubscribeResultMessage,
  UnsubscribeDoneMessage,
  AuditResultMessage,
  ErrorMessage,
]);
export type ServerMessage = z.infer<typeof ServerMessage>;
export type ServerMessageOf<T extends ServerMessage['type']> = Extract<ServerMessage, { type: T }>;
