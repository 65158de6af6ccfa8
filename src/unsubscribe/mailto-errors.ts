/**
 * nodemailer failures turned into a reason and a sentence a person understands. Only the
 * server's own reply is ever quoted, and never with the password or token in it.
 */
import type { MailtoFailure, MailtoSenderOptions } from './mailto.ts';

export type ErrorContext = { where: string; user: string; oauth: boolean; timeoutMs: number; secrets: string[] };
type SmtpError = {
  code?: string;
  originalCode?: string;
  responseCode?: number;
  command?: string;
  response?: string;
  message?: string;
};

const AUTH_CODES = new Set(['EAUTH', 'ENOAUTH', 'EOAUTH2']);
const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL|HOSTNAME|ALTNAME/;

/** nodemailer error → a reason and a sentence. Only the server's own reply text is quoted. */
export function describer(ctx: ErrorContext) {
  return (err: unknown): { reason: MailtoFailure; detail: string } => {
    const e = (err ?? {}) as SmtpError;
    const code = e.code ?? '';
    const system = e.originalCode ?? '';
    if (AUTH_CODES.has(code)) {
      return {
        reason: 'auth',
        detail: ctx.oauth
          ? `${ctx.where} refused the sign-in token for ${ctx.user}; sign in again.`
          : `${ctx.where} refused the sign-in for ${ctx.user}. Check the address and use an app password, not your usual password.`,
      };
    }
    // EABORT is our own per-message deadline (the AbortSignal passed to sendMail).
    if (code === 'ETIMEDOUT' || code === 'EABORT') {
      const s = ctx.timeoutMs / 1000;
      return { reason: 'timeout', detail: `${ctx.where} did not answer within ${s} second${s === 1 ? '' : 's'}.` };
    }
    if (/STARTTLS/.test(e.message ?? '')) {
      return {
        reason: 'tls',
        detail: `${ctx.where} did not offer STARTTLS, so nothing was sent (not even the password).`,
      };
    }
    if (code === 'ETLS' || TLS_CODES.test(system) || /certificate/i.test(e.message ?? '')) {
      return { reason: 'tls', detail: `The certificate of ${ctx.where} could not be verified, so nothing was sent.` };
    }
    // RFC 5321 §4.2.1: 5yz is a permanent refusal, 4yz a temporary one; either way not sent now.
    if ((e.responseCode ?? 0) >= 400 || code === 'EENVELOPE' || code === 'EMESSAGE') {
      const reply = serverText(e.response ?? e.message ?? '', ctx.secrets);
      const when = (e.responseCode ?? 0) >= 500 ? 'refused' : 'temporarily refused';
      return { reason: 'rejected', detail: `${ctx.where} ${when} the message (${reply}).` };
    }
    const why =
      system === 'ECONNREFUSED'
        ? 'connection refused'
        : system === 'ECONNRESET' || code === 'ECONNECTION'
          ? 'the server closed the connection'
          : 'network error';
    return { reason: 'connect', detail: `Could not connect to ${ctx.where} (${why}).` };
  };
}

/**
 * The password and token as they could come back in a hostile server's reply: verbatim, and as
 * the base64 that AUTH PLAIN, AUTH LOGIN and XOAUTH2 put on the wire.
 */
export function secretsOf(opts: MailtoSenderOptions): string[] {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const out: string[] = [];
  if (opts.password) out.push(opts.password, b64(opts.password), b64(`\0${opts.user}\0${opts.password}`));
  if (opts.accessToken) {
    out.push(opts.accessToken, b64(`user=${opts.user}\x01auth=Bearer ${opts.accessToken}\x01\x01`));
  }
  return out.sort((a, b) => b.length - a.length);
}

/** The first line of a server reply, without controls, secrets redacted, at most 200 chars. */
function serverText(text: string, secrets: string[]): string {
  let line = (text.split(/\r?\n/)[0] ?? '').replace(/\p{Cc}/gu, ' ').trim();
  for (const s of secrets) line = line.split(s).join('[redacted]');
  return line.length > 200 ? `${line.slice(0, 199)}…` : line || 'no reason given';
}
