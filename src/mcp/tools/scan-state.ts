/**
 * What `scan_inbox` and `batch_unsubscribe` say about a hand-off (docs/agents.md, "Scanning a
 * mailbox for an agent"): one object whose `status` tells which members are there. Failures
 * of the scan itself (a wrong app password, an unreachable server, the daily allowance) are
 * part of this state, with the /ws protocol's codes in lower case (docs/websocket.md); they
 * are not tool errors, since the tool did what it was asked.
 */
import { z } from 'zod';
import { ProgressMessage, Subscription } from '../../channel/protocol.ts';
import type { Handoff } from '../../handoff/store.ts';
import { OAUTH_PROVIDER } from '../../mailbox/providers.ts';

const Iso = z.string();
const Count = z.int().nonnegative();

export const UnsubscribeResult = z.object({
  id: z.string().describe('the subscription id'),
  status: z.enum(['unsubscribed', 'email_sent', 'open_link', 'skipped', 'failed']),
  method: z.enum(['one_click', 'mailto', 'link']).nullable(),
  url: z.string().optional().describe('for open_link: the page the person must open'),
  detail: z.string(),
  dry_run: z.boolean(),
  archived: Count.optional().describe('messages moved, when archive was asked'),
});

export const BatchState = z.object({
  status: z.enum(['running', 'done']),
  dry_run: z.boolean(),
  results: z.array(UnsubscribeResult).describe('one per subscription, in the order they finished'),
  counts: z
    .object({ unsubscribed: Count, email_sent: Count, open_link: Count, skipped: Count, failed: Count })
    .optional()
    .describe('once done'),
  archived: Count.optional(),
});

export const ScanState = z.object({
  scan_id: z.string().describe('pass it back to scan_inbox and batch_unsubscribe'),
  status: z
    .enum(['awaiting_user', 'scanning', 'done', 'failed'])
    .describe('awaiting_user: the person has not signed in yet; failed: see error (the person may try again)'),
  email: z.string(),
  provider: z.string(),
  expires_at: Iso.describe('when the hand-off, its credentials and its results are wiped'),
  connect_url: z
    .string()
    .optional()
    .describe('give this to the person: they open it in a browser and sign in there (never ask them for a password)'),
  verification_uri: z.string().optional().describe('device sign-in: the page where the person enters user_code'),
  verification_uri_complete: z.string().optional(),
  user_code: z.string().optional(),
  interval: z.int().optional().describe('device sign-in: seconds between calls that make sense'),
  progress: z
    .object({ phase: ProgressMessage.shape.phase, done: Count, total: Count, mailbox: z.string().optional() })
    .optional(),
  error: z
    .object({ code: z.string(), message: z.string(), resets_at: Iso.optional(), retry_after: Count.optional() })
    .optional()
    .describe('why the last sign-in or scan failed; codes as in docs/websocket.md, lower-cased'),
  scanned: Count.optional().describe('messages read'),
  mailboxes: z.array(z.object({ path: z.string(), messages: Count })).optional(),
  subscriptions: z.array(Subscription).optional().describe('once done: every list sender found'),
  unsubscribe: BatchState.optional().describe('the last batch_unsubscribe on this scan'),
});
export type ScanState = z.infer<typeof ScanState>;

export function batchState(h: Handoff): z.infer<typeof BatchState> | undefined {
  const b = h.batch;
  if (!b) return undefined;
  return {
    status: b.running ? 'running' : 'done',
    dry_run: b.dryRun,
    results: [...b.results.values()].map(({ type: _, ...r }) => r),
    ...(b.done ? { counts: b.done.counts, archived: b.done.archived } : {}),
  };
}

export function scanState(h: Handoff, baseUrl: string, maxSignIns: number): ScanState {
  const r = h.request;
  // the connect page takes a password while nothing runs and tries are left
  const connect =
    r.provider !== OAUTH_PROVIDER.id &&
    (h.status === 'awaiting_user' || h.status === 'failed') &&
    h.signIns < maxSignIns;
  const last = h.session.lastScan;
  const p = h.progress;
  return {
    scan_id: h.scanId,
    status: h.status,
    email: r.email,
    provider: r.provider,
    expires_at: h.expiresAt.toISOString(),
    ...(connect ? { connect_url: `${baseUrl}/connect?token=${h.connectToken}` } : {}),
    ...(h.device && h.status === 'awaiting_user' ? h.device : {}),
    ...(p
      ? { progress: { phase: p.phase, done: p.done, total: p.total, ...(p.mailbox ? { mailbox: p.mailbox } : {}) } }
      : {}),
    ...(h.error ? { error: { ...h.error, code: h.error.code.toLowerCase() } } : {}),
    ...(h.status === 'done' && h.done && last
      ? { scanned: h.done.scanned, mailboxes: h.done.mailboxes, subscriptions: [...last.subscriptions.values()] }
      : {}),
    ...(h.batch ? { unsubscribe: batchState(h) } : {}),
  };
}
