/**
 * scan_inbox: opens a scan hand-off for a mailbox, or reports on one (src/handoff/store.ts).
 * The agent never sees a mailbox secret: it gets a `connect_url` for the person, who signs in
 * on that page; calling again with the `scan_id` gives the progress, then the subscriptions.
 * Opening a hand-off checks the daily allowance early; the scan takes one scan of it once the
 * sign-in worked (src/channel/scan-command.ts).
 */
import { z } from 'zod';
import { signInWithDevice } from '../../handoff/device.ts';
import { OAUTH_PROVIDER, PROVIDER_IDS } from '../../mailbox/providers.ts';
import { toolFailure } from '../errors.ts';
import { defineTool, ok } from '../tool.ts';
import { ScanState, scanState } from './scan-state.ts';

const Host = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9.:[\]-]+$/, 'a host name or IP address');
const ServerAt = z.strictObject({ host: Host, port: z.int().min(1).max(65535), tls: z.enum(['implicit', 'starttls']) });

const Input = z
  .strictObject({
    scan_id: z.string().min(1).max(100).optional().describe('a scan_id from an earlier call: report on that scan'),
    email: z.email().max(254).optional().describe('the mailbox to scan (with provider)'),
    provider: z
      .enum(PROVIDER_IDS)
      .optional()
      .describe('the mail provider; custom needs imap (and smtp for mailto); outlook signs in with a device code'),
    since: z.iso.date().optional().describe('only mail received on or after this date (YYYY-MM-DD)'),
    imap: ServerAt.optional().describe('custom provider: the IMAP server'),
    smtp: ServerAt.optional().describe('custom provider: the SMTP server (for unsubscribing by email)'),
  })
  .superRefine((a, ctx) => {
    if (a.scan_id !== undefined) {
      if (a.email || a.provider || a.since || a.imap || a.smtp) {
        ctx.addIssue({
          code: 'custom',
          path: ['scan_id'],
          message: 'scan_id alone reports on a scan; leave the rest out',
        });
      }
      return;
    }
    if (!a.email || !a.provider) {
      ctx.addIssue({ code: 'custom', path: ['email'], message: 'email and provider start a scan (or send scan_id)' });
    }
    if (a.provider === 'custom' && !a.imap) {
      ctx.addIssue({ code: 'custom', path: ['imap'], message: 'the custom provider needs imap {host, port, tls}' });
    }
    if (a.provider !== 'custom' && (a.imap || a.smtp)) {
      ctx.addIssue({ code: 'custom', path: ['imap'], message: 'imap and smtp are only for the custom provider' });
    }
  });

export const scanInbox = defineTool({
  name: 'scan_inbox',
  title: 'Scan an inbox',
  description:
    'Find the mailing lists and newsletters in a mailbox. Given email and provider it opens a scan and returns a connect_url: give it to the person, who signs in there (you never handle their password); for outlook it returns verification_uri and user_code instead, for the person to open and type. Then call it with only scan_id for progress and, once status is done, the subscriptions with their unsubscribe methods. Results and credentials are wiped at expires_at (15 minutes).',
  scopes: ['inbox.read'],
  annotations: { readOnlyHint: true, openWorldHint: true },
  input: Input,
  output: ScanState,
  async run(a, { deps, principal }) {
    const { handoffs } = deps;
    const max = handoffs.settings.maxSignIns;
    if (a.scan_id !== undefined) {
      const h = handoffs.get(a.scan_id, principal.registrationId);
      if (!h) return toolFailure('scan_expired', 'no live scan with this scan_id for this agent; start a new one');
      return ok(scanState(h, deps.baseUrl, max));
    }
    const email = a.email!;
    const oauth = a.provider === OAUTH_PROVIDER.id;
    if (oauth && !deps.oauth) {
      return toolFailure(
        'provider_not_configured',
        'this server has no Microsoft sign-in set up; use another provider',
      );
    }
    const before = await deps.quota.status(email);
    if (before.scans_left <= 0) {
      return toolFailure('scan_quota_exceeded', 'no scans left today for this mailbox', {
        resets_at: before.resets_at,
      });
    }
    const created = handoffs.create({
      registrationId: principal.registrationId,
      email,
      provider: a.provider!,
      ...(a.imap ? { imap: a.imap } : {}),
      ...(a.smtp ? { smtp: a.smtp } : {}),
      ...(a.since ? { since: a.since } : {}),
    });
    if (!created.ok) {
      return toolFailure(
        'too_many_handoffs',
        `at most ${handoffs.settings.maxPerAgent} scans at a time; wait for one to reach its expires_at`,
      );
    }
    if (oauth) {
      // RFC 8628: the pair the person needs, from the identity provider's device endpoint
      const started = await signInWithDevice(handoffs, created.handoff, deps.oauth!);
      if (!started.ok) return toolFailure('provider_unavailable', started.message);
    }
    return ok(scanState(created.handoff, deps.baseUrl, max));
  },
});
