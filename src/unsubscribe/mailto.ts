/**
 * Unsubscribe by mail (RFC 2369 mailto: in List-Unsubscribe): a short message from the person's
 * own address through their own SMTP server, with the credentials the scan already holds in
 * memory. The list can only match the request to the subscriber if it comes from the address
 * it mails, so no relay of ours is involved.
 *
 * The SMTP host may be one a person typed, so it goes through the outbound guard once, and the
 * pool connects to the address the guard checked while TLS still verifies the host name
 * (the pattern of mailbox/imap-connect.ts). Outcomes are data; the password never appears in one.
 */
import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type nodemailer from 'nodemailer';
import type { Endpoint } from '../mailbox/providers.ts';
import type { MailtoMethod } from '../mailbox/types.ts';
import type { OutboundGuard } from '../outbound/guard.ts';
import { describer, secretsOf } from './mailto-errors.ts';

export type MailtoSenderOptions = {
  endpoint: Endpoint;
  user: string;
  password?: string;
  /** OAuth 2 access token (XOAUTH2); used instead of the password when given. */
  accessToken?: string;
  /**
   * OAuth 2 access tokens from a source that refreshes them (XOAUTH2), instead of `accessToken`:
   * the pool asks `current()` for its first token and again once that one expired, and `renew()`
   * once when the server refused one (nodemailer's provisionCallback). A long batch then never
   * fails on an expired token.
   */
  tokens?: TokenSource;
  /** The scanned address: From and envelope sender of every message. */
  from: string;
  guard: OutboundGuard;
  /** Per message, from queueing to the server's final reply; default 30 000 ms. */
  timeoutMs?: number;
  /** Open SMTP connections at most; default 2 (providers throttle parallel logins). */
  maxConnections?: number;
};

export type TokenSource = {
  /** the access token to use now (refreshed when nearly expired), or null when the sign-in ended */
  current(): Promise<{ token: string; expiresAt: number } | null>;
  /** the server refused `refused`: a new token, or null */
  renew(refused: string): Promise<{ token: string; expiresAt: number } | null>;
};

export type MailtoFailure = 'blocked' | 'auth' | 'connect' | 'tls' | 'rejected' | 'timeout';

export type MailtoResult = { ok: true; detail: string } | { ok: false; reason: MailtoFailure; detail: string };

export type MailtoSender = {
  send(m: MailtoMethod): Promise<MailtoResult>;
  close(): Promise<void>;
};

const DEFAULT_SUBJECT = 'unsubscribe';
const DEFAULT_BODY = 'Please unsubscribe me from this list.';

type Transport = ReturnType<typeof nodemailer.createTransport>;
type Ready = { ok: true; transport: Transport } | { ok: false; result: MailtoResult };

export function createMailtoSender(opts: MailtoSenderOptions): MailtoSender {
  const { endpoint, user, from, guard, timeoutMs = 30_000, maxConnections = 2 } = opts;
  const where = `${endpoint.host}:${endpoint.port}`;
  const secrets = secretsOf(opts);
  const describe = describer({ where, user, oauth: !!(opts.accessToken || opts.tokens), timeoutMs, secrets });
  let ready: Promise<Ready> | null = null;
  // After the server refused the sign-in, further sends do not try again: a bulk unsubscribe
  // repeating a wrong password is how an account gets locked.
  let refusedSignIn: MailtoResult | null = null;
  let closed = false;

  /** Resolve and check the host once; every later send reuses the verdict and the pool. */
  async function prepare(): Promise<Ready> {
    const resolved = await guard.resolve(endpoint.host, endpoint.port);
    if (!resolved.ok) {
      if (resolved.reason === 'dns') {
        ready = null; // a DNS hiccup is not a verdict on the host: the next send asks again
        return fail('connect', `Could not connect to ${where} (host not found).`);
      }
      return fail('blocked', `${where} is a private or reserved address and is not reachable from here.`);
    }
    // nodemailer is loaded with the first mailto unsubscribe (docs/benchmarks.md, bench/memory).
    const { default: mailer } = await import('nodemailer');
    const transport = mailer.createTransport({
      pool: true,
      maxConnections,
      // Unsubscribe mails go out in bulk; a burst of logins and messages is what gets an
      // account throttled or flagged, so stay well under provider limits.
      rateLimit: 10,
      rateDelta: 1000,
      // A pooled connection the server dropped while idle is retried once, not five times.
      maxRequeues: 1,
      host: resolved.address,
      port: endpoint.port,
      secure: endpoint.tls === 'implicit',
      // RFC 8314: credentials only ever travel over TLS, so STARTTLS is required, not opportunistic
      // (a server that does not offer it gets no AUTH at all).
      requireTLS: endpoint.tls === 'starttls',
      // Connect to the checked address, verify the certificate against the name the person chose.
      servername: isIP(endpoint.host) ? undefined : endpoint.host,
      tls: {
        servername: isIP(endpoint.host) ? undefined : endpoint.host,
        rejectUnauthorized: true,
        minVersion: 'TLSv1.2',
      },
      auth: opts.tokens
        ? { type: 'OAuth2', user, provisionCallback: provision(opts, opts.tokens, secrets) }
        : opts.accessToken
          ? { type: 'OAuth2', user, accessToken: opts.accessToken }
          : { user, pass: opts.password ?? '' },
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      // Messages and SMTP traffic hold personal data and the AUTH exchange: never logged.
      logger: false,
      debug: false,
      disableFileAccess: true,
      disableUrlAccess: true,
    });
    transport.on('error', () => {}); // failures reach each send's callback; an unhandled event would crash
    return { ok: true, transport };
  }

  async function send(m: MailtoMethod): Promise<MailtoResult> {
    if (closed) throw new Error('mailto sender used after close()');
    ready ??= prepare();
    const r = await ready;
    if (!r.ok) return r.result;
    if (refusedSignIn) return refusedSignIn;
    try {
      await r.transport.sendMail({
        from,
        // MailtoMethod carries one recipient and no cc/bcc by construction: parseMailto refuses
        // any `to`, `cc` or `bcc` hfield. The envelope is set explicitly so
        // nothing but that one address is ever a recipient.
        to: m.to,
        envelope: { from, to: [m.to] },
        // RFC 6068 §2: of the hfields only subject and body are honoured (§3 lets a client skip
        // the rest). They are already percent-decoded, so a '+' is a plus, never a space.
        subject: m.subject ?? DEFAULT_SUBJECT,
        text: m.body ?? DEFAULT_BODY,
        // RFC 5322 §3.6.4 asks for a Message-ID. No Auto-Submitted header: RFC 3834 §5.1 means
        // auto-generated for mail an automatic process decided to send; a person asked for this
        // one, and list software that ignores automated mail (RFC 3834 §2) must not skip it.
        messageId: `<${randomUUID()}@${from.slice(from.lastIndexOf('@') + 1)}>`,
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { ok: true, detail: `An unsubscribe email was sent from ${from} to ${m.to}.` };
    } catch (err) {
      const result: MailtoResult = { ok: false, ...describe(err) };
      if (result.reason === 'auth') refusedSignIn = result;
      return result;
    }
  }

  async function close(): Promise<void> {
    closed = true;
    const r = await ready;
    if (r?.ok) r.transport.close();
  }

  return { send, close };
}

function fail(reason: MailtoFailure, detail: string): Ready {
  return { ok: false, result: { ok: false, reason, detail } };
}

/**
 * nodemailer's provisionCallback over a token source: `renew` means the server refused the last
 * token. The expiry passed back makes nodemailer ask again once a token has expired. Every token
 * handed out joins the secrets redacted from server replies.
 */
function provision(opts: MailtoSenderOptions, source: TokenSource, secrets: string[]) {
  let last = '';
  return (_user: string, renew: boolean, cb: (err: Error | null, token?: string, expires?: number) => void) => {
    (renew ? source.renew(last) : source.current()).then(
      (t) => {
        if (!t) return cb(Object.assign(new Error('the sign-in has ended'), { code: 'EAUTH' }));
        last = t.token;
        secrets.push(...secretsOf({ ...opts, password: undefined, accessToken: t.token }));
        secrets.sort((a, b) => b.length - a.length);
        cb(null, t.token, t.expiresAt);
      },
      () => cb(Object.assign(new Error('no token'), { code: 'EAUTH' })),
    );
  };
}
