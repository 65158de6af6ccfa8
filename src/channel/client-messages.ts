/**
 * Client → server messages of the /ws protocol (docs/websocket.md). The server parses every
 * frame with `ClientMessage`; the browser builds its messages as `z.input` of these schemas.
 */
import { z } from 'zod';
import { OAUTH_PROVIDER, PROVIDER_IDS } from '../mailbox/providers.ts';

const Email = z.email().max(254);
const Host = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9.:[\]-]+$/, 'a host name or IP address');
const Port = z.int().min(1).max(65535);
const TlsMode = z.enum(['implicit', 'starttls']);
const SubscriptionId = z.string().min(1).max(100);

export const QuotaMessage = z.strictObject({ type: z.literal('quota'), email: Email });

export const ScanMessage = z
  .strictObject({
    type: z.literal('scan'),
    provider: z.enum(PROVIDER_IDS),
    /** the mailbox address; for `outlook` it comes from the Microsoft sign-in instead */
    email: Email.optional(),
    password: z.string().min(1).max(1024).optional(),
    host: Host.optional(),
    port: Port.optional(),
    tls: TlsMode.optional(),
    smtp: z.strictObject({ host: Host, port: Port, tls: TlsMode }).optional(),
    since: z.iso.date().or(z.iso.datetime()).optional(),
    /** folder paths, or roles: default, all, archive, junk (spam), trash; default ["default"] (docs/websocket.md) */
    mailboxes: z.array(z.string().min(1).max(200)).min(1).max(10).optional(),
    previous_unsubscribes: z
      .array(z.strictObject({ list_key: z.string().min(1).max(600), at: z.iso.datetime() }))
      .max(2000)
      .optional(),
  })
  .superRefine((m, ctx) => {
    if (m.provider === 'custom' && (!m.host || !m.port || !m.tls)) {
      ctx.addIssue({ code: 'custom', path: ['host'], message: 'the custom provider needs host, port and tls' });
    }
    if (m.provider !== 'custom' && (m.host || m.port || m.tls || m.smtp)) {
      ctx.addIssue({
        code: 'custom',
        path: ['host'],
        message: 'host, port, tls and smtp are only for the custom provider',
      });
    }
    if (m.provider === OAUTH_PROVIDER.id) {
      // The sign-in is the session cookie of the connection's upgrade request (docs/microsoft.md).
      if (m.password)
        ctx.addIssue({
          code: 'custom',
          path: ['password'],
          message: 'outlook signs in with Microsoft, not a password',
        });
      return;
    }
    if (!m.email) ctx.addIssue({ code: 'custom', path: ['email'], message: 'an email address is required' });
    if (!m.password) {
      ctx.addIssue({ code: 'custom', path: ['password'], message: 'a password (app password) is required' });
    }
  });

export const UnsubscribeMessage = z.strictObject({
  type: z.literal('unsubscribe'),
  ids: z.array(SubscriptionId).min(1).max(2000),
  archive: z.union([z.boolean(), z.enum(['archive', 'trash'])]).optional(),
  dry_run: z.boolean().optional(),
  /** ids the person chose to include although flagged (failed DKIM/DMARC, or only in Junk) */
  include_flagged: z.array(SubscriptionId).max(2000).optional(),
});

export const CancelMessage = z.strictObject({ type: z.literal('cancel') });

/** The frequency and cost audit of this session's last scan (docs/audit.md). */
export const AuditRequestMessage = z.strictObject({ type: z.literal('audit') });

/** Takes over a session whose connection dropped; the value is the `session` of `ready`. */
export const ResumeMessage = z.strictObject({
  type: z.literal('resume'),
  session: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_-]+$/, 'a session from ready'),
});

export const ClientMessage = z.discriminatedUnion('type', [
  QuotaMessage,
  ScanMessage,
  UnsubscribeMessage,
  CancelMessage,
  ResumeMessage,
  AuditRequestMessage,
]);
export type ClientMessage = z.infer<typeof ClientMessage>;
/** What a client may put in a frame (before defaults and trimming). */
export type ClientMessageInput = z.input<typeof ClientMessage>;
export type ScanMessage = z.infer<typeof ScanMessage>;
export type UnsubscribeMessage = z.infer<typeof UnsubscribeMessage>;
