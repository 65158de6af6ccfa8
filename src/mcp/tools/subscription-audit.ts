/**
 * subscription_audit: the frequency and cost audit (src/audit/, docs/audit.md) of the newest
 * finished scan of an address among the calling registration's live hand-offs, in the shape
 * the /ws `audit` message and the panel on `/` carry. It runs in the hand-off's scan session as
 * /ws runs it: it reads a few candidate receipts with the sign-in that scan still holds and
 * keeps nothing of them; asked again, the session answers with the finished audit at once. The
 * tool waits for it up to a bound; a longer audit goes on, and the next call gets it. Needs
 * `audit.read`, which only a claimed registration holds.
 */
import { z } from 'zod';
import { Audit } from '../../audit/schema.ts';
import type { Handoff } from '../../handoff/store.ts';
import { toolFailure } from '../errors.ts';
import { defineTool, ok, type ToolOutcome } from '../tool.ts';

type Answer = { audit: z.infer<typeof Audit> } | { code: string; message: string };

/** The session's answer to an audit: the audit, or the error it reported. */
function answerOf(h: Handoff): Promise<Answer> {
  return new Promise((resolve) => {
    const stop = h.watch((msg) => {
      if (msg.type === 'audit' && !msg.cancelled) resolve({ audit: msg.audit });
      else if (msg.type === 'error') resolve({ code: msg.code, message: msg.message });
      else return;
      stop();
    });
  });
}

export const subscriptionAudit = defineTool({
  name: 'subscription_audit',
  title: 'Audit subscriptions: frequency and cost',
  description:
    'The frequency and cost audit of the newest finished scan_inbox scan of this address (while its hand-off is alive): how much list mail arrives and how much of it is read, and what the paid services that send receipts cost — per service the latest amount, currency (ISO 4217), billing_period (ISO 8601), monthly_amount and last_charged, and monthly totals per currency (never converted). Amounts are major units; an amount that could not be read for sure is null, never a guess. Offers and discounts in the mail are not counted.',
  scopes: ['audit.read'],
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  input: z.strictObject({ email: z.email().max(254).describe('the address a scan_inbox scan finished for') }),
  output: Audit,
  async run({ email }, { deps, principal }): Promise<ToolOutcome<z.input<typeof Audit>>> {
    const h = deps.handoffs.latestDone(principal.registrationId, email);
    if (!h)
      return toolFailure('no_scan', 'no finished scan of this address among this agent’s live scans; scan_inbox first');
    const running = h.session.running;
    if (running && running !== 'audit') {
      return toolFailure(
        'busy',
        'an unsubscribe batch is running on this scan; call again when scan_inbox says it is done',
      );
    }
    const answer = answerOf(h);
    // An audit already running (an earlier call that stopped waiting) is joined, not started again.
    if (running !== 'audit') void h.session.audit();
    let timer: NodeJS.Timeout | undefined;
    const got = await Promise.race([
      answer,
      new Promise<null>((r) => {
        timer = setTimeout(() => r(null), deps.handoffs.settings.batchWaitMs);
      }),
    ]);
    clearTimeout(timer);
    if (got === null)
      return toolFailure('audit_running', 'the audit is still reading receipts; call again', { retry_after: 10 });
    if ('code' in got) return toolFailure('audit_failed', got.message);
    return ok(got.audit);
  },
});
