/**
 * batch_unsubscribe: the unsubscribe engine (src/unsubscribe/engine.ts, through the scan
 * session as /ws uses it) on the subscriptions of a finished hand-off scan, with the sign-in
 * that scan still holds. RFC 8058 one-click first, then RFC 2369 mailto from the person's own
 * address; a sender that only offers a web page is returned as `open_link` for the person.
 * Waits for the batch up to a bound; a longer batch goes on, and scan_inbox {scan_id} reports
 * the rest. Needs `inbox.write`, which only a claimed registration holds.
 */
import { z } from 'zod';
import { toolFailure } from '../errors.ts';
import { defineTool, ok } from '../tool.ts';
import { BatchState, batchState } from './scan-state.ts';

const Id = z.string().min(1).max(100);

export const batchUnsubscribe = defineTool({
  name: 'batch_unsubscribe',
  title: 'Unsubscribe in bulk',
  description:
    'Unsubscribe from subscriptions found by scan_inbox (their ids), while the scan is alive: one-click (RFC 8058) where the sender offers it, else an email from the person’s address; web-page-only senders come back as open_link for the person. dry_run says what would happen and sends nothing; archive moves their messages out of the inbox. Senders that failed DKIM/DMARC or only sit in Junk are skipped unless listed in include_flagged.',
  scopes: ['inbox.read', 'inbox.write'],
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  input: z.strictObject({
    scan_id: z.string().min(1).max(100),
    subscriptions: z.array(Id).min(1).max(2000).describe('subscription ids from scan_inbox'),
    archive: z
      .union([z.boolean(), z.enum(['archive', 'trash'])])
      .optional()
      .describe('also move their messages: true or "archive" to the archive folder, "trash" to the trash'),
    dry_run: z.boolean().optional(),
    include_flagged: z.array(Id).max(2000).optional().describe('flagged ids to act on anyway'),
  }),
  output: BatchState.extend({ scan_id: z.string() }),
  async run(a, { deps, principal }) {
    const h = deps.handoffs.get(a.scan_id, principal.registrationId);
    if (!h) return toolFailure('scan_expired', 'no live scan with this scan_id for this agent; scan again');
    if (!h.session.lastScan) {
      return toolFailure('scan_not_ready', `the scan is ${h.status.replace('_', ' ')}; wait until its status is done`);
    }
    if (h.session.running) return toolFailure('busy', 'a batch is already running on this scan; see scan_inbox');
    h.batch = { running: true, dryRun: a.dry_run ?? false, results: new Map(), done: null };
    const batch = h.session.unsubscribe(
      {
        type: 'unsubscribe',
        ids: a.subscriptions,
        ...(a.archive !== undefined ? { archive: a.archive } : {}),
        ...(a.dry_run !== undefined ? { dry_run: a.dry_run } : {}),
        ...(a.include_flagged ? { include_flagged: a.include_flagged } : {}),
      },
      // the unsubscribe work an agent can cause counts per registration, as a browser's counts per IP
      { ip: `agent:${principal.registrationId}` },
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([batch, new Promise((r) => (timer = setTimeout(r, deps.handoffs.settings.batchWaitMs)))]);
    clearTimeout(timer);
    return ok({ scan_id: h.scanId, ...batchState(h)! });
  },
});
