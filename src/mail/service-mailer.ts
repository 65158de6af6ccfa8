/**
 * The service's own outgoing mail (claim links for agents). With SMTP_URL, nodemailer sends
 * through that server; TLS is verified as everywhere (a private CA is trusted through
 * NODE_EXTRA_CA_CERTS), and with credentials in the URL STARTTLS is required, so they never
 * travel in clear (RFC 8314 §3). Without SMTP_URL each message is written as an .eml file into
 * DATA_DIR/outbox and its path is logged, so a developer can open it: nothing is dropped.
 * Message content is never logged; it carries one-time links.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';

export interface ServiceMail {
  to: string;
  subject: string;
  text: string;
}

export type SendResult = { ok: true; path?: string } | { ok: false; detail: string };

export interface ServiceMailer {
  send(mail: ServiceMail): Promise<SendResult>;
  close(): void;
}

export interface ServiceMailerOptions {
  smtpUrl: string | undefined;
  from: string;
  dataDir: string;
  logger: Logger;
  /** per message, connect to final reply; default 15 000 ms */
  timeoutMs?: number;
}

export function createServiceMailer(opts: ServiceMailerOptions): ServiceMailer {
  const { smtpUrl, from, logger, timeoutMs = 15_000 } = opts;
  const domain = from.slice(from.lastIndexOf('@') + 1).replace(/>$/, '');
  const outbox = join(opts.dataDir, 'outbox');
  const common = { logger: false, debug: false, disableFileAccess: true, disableUrlAccess: true } as const;
  // nodemailer is loaded with the first mail: most starts send none (docs/benchmarks.md, bench/memory).
  let made: Promise<Transporter> | null = null;
  const transport = () =>
    (made ??= import('nodemailer').then(({ default: nodemailer }) => {
      const t = smtpUrl
        ? nodemailer.createTransport({
            ...common,
            url: smtpUrl,
            requireTLS: smtpUrl.startsWith('smtp:') && new URL(smtpUrl).username !== '',
            tls: { rejectUnauthorized: true, minVersion: 'TLSv1.2' },
            connectionTimeout: timeoutMs,
            greetingTimeout: timeoutMs,
            socketTimeout: timeoutMs,
          })
        : nodemailer.createTransport({ ...common, streamTransport: true, buffer: true, newline: 'windows' });
      t.on('error', () => {}); // failures reach each send's promise
      return t;
    }));

  return {
    async send(mail) {
      const messageId = `<${randomUUID()}@${domain}>`;
      try {
        const info = await (await transport()).sendMail({
          from,
          to: mail.to,
          envelope: { from: from.replace(/^.*<|>$/g, ''), to: [mail.to] },
          subject: mail.subject,
          text: mail.text,
          messageId,
          // RFC 3834 §5: sent by the service itself, not by a person
          headers: { 'Auto-Submitted': 'auto-generated' },
        });
        if (smtpUrl) {
          logger.info({ messageId }, 'service mail sent');
          return { ok: true };
        }
        await mkdir(outbox, { recursive: true, mode: 0o700 });
        const path = join(outbox, `${new Date().toISOString().replaceAll(':', '-')}-${randomUUID()}.eml`);
        await writeFile(path, (info as unknown as { message: Buffer }).message, { mode: 0o600 });
        logger.info({ messageId, path }, 'service mail written to the outbox (no SMTP_URL)');
        return { ok: true, path };
      } catch (err) {
        const detail = err instanceof Error ? err.message : String(err);
        logger.warn({ messageId, detail }, 'service mail failed');
        return { ok: false, detail };
      }
    },
    close() {
      void made?.then((t) => t.close());
    },
  };
}
