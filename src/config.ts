/**
 * Every setting optout reads (the README's table), parsed and validated once at start,
 * then frozen and passed down. No other module reads process.env.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { WEEKLY_CRON } from './linkcheck/schedule.ts';
import { DEFAULT_SCAN_CAPS } from './mailbox/scan-caps.ts';
import { MICROSOFT_DEFAULTS, mailEndpoint } from './oauth/settings.ts';

const emptyToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const opt = <T extends z.ZodType>(schema: T) => z.preprocess(emptyToUndefined, schema.optional());
/** "a, b,c" → ["a", "b", "c"], each item checked by `item`; unset → []. */
const commaList = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : v,
    z.array(item).default([]),
  );

const EnvSchema = z.object({
  PORT: opt(z.coerce.number().int().min(0).max(65535)),
  HOST: opt(z.string()),
  BASE_URL: opt(z.url({ protocol: /^https?$/ })),
  API_URL: opt(z.url({ protocol: /^https?$/ })),
  DATA_DIR: opt(z.string()),
  DATABASE_URL: opt(z.url({ protocol: /^postgres(ql)?$/ })),
  SMTP_URL: opt(z.url({ protocol: /^smtps?$/ })),
  MAIL_FROM: opt(z.string().regex(/^(?:[^<>]*<)?[^\s@<>]+@[^\s@<>]+>?$/, 'an address, or Name <address>')),
  LLM_PROVIDER: opt(z.enum(['none', 'openai', 'anthropic'])),
  LLM_API_KEY: opt(z.string()),
  LLM_BASE_URL: opt(z.url({ protocol: /^https?$/ })),
  LLM_MODEL: opt(z.string()),
  LLM_TIMEOUT_MS: opt(z.coerce.number().int().min(100).max(300_000)),
  TRUST_PROXY: opt(z.string()),
  OUTBOUND_ALLOW_HOSTS: commaList(z.string()),
  // five cron fields (minute hour day month weekday, UTC), or "off"
  LINK_CHECK_SCHEDULE: opt(
    z.string().regex(/^(off|\S+( \S+){4})$/, 'a cron expression of five fields (UTC), or "off"'),
  ),
  ALLOWED_ORIGINS: commaList(z.url({ protocol: /^https?$/ })),
  SCAN_DAILY_LIMIT: opt(z.coerce.number().int().min(0).max(1000)),
  // Attempt limits (src/limits/, docs/security.md): per mailbox address or client IP
  SIGNIN_FAILURES_PER_ADDRESS: opt(z.coerce.number().int().min(1).max(1000)),
  SIGNIN_FAILURES_PER_IP: opt(z.coerce.number().int().min(1).max(100_000)),
  SCANS_PER_IP: opt(z.coerce.number().int().min(1).max(100_000)),
  WS_CONNECTIONS_PER_IP: opt(z.coerce.number().int().min(1).max(100_000)),
  UNSUBSCRIBES_PER_IP: opt(z.coerce.number().int().min(1).max(1_000_000)),
  LINK_CHECKS_PER_IP: opt(z.coerce.number().int().min(1).max(100_000)),
  // Bounds on one scan's work (src/mailbox/scan-caps.ts)
  SCAN_MAX_MESSAGES: opt(z.coerce.number().int().min(1).max(10_000_000)),
  SCAN_MAX_HEADER_BYTES: opt(
    z.coerce
      .number()
      .int()
      .min(4096)
      .max(1024 * 1024),
  ),
  SCAN_MAX_SUBSCRIPTIONS: opt(z.coerce.number().int().min(1).max(1_000_000)),
  OPERATOR_NAME: opt(z.string().max(200)),
  // RFC 9116 §2.5.3: the Contact field is a URI; mailto, https and tel are the ones a reporter can use.
  SECURITY_CONTACT: opt(
    z.string().regex(/^(mailto:[^\s@]+@[^\s@]+|https:\/\/\S+|tel:\+?[0-9-]+)$/, 'a mailto:, https: or tel: URI'),
  ),
  DRAIN_SECONDS: opt(z.coerce.number().int().min(0).max(600)),
  LOG_LEVEL: opt(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])),
  LOG_SLOW_MS: opt(z.coerce.number().int().min(1).max(3_600_000)),
  OAUTH_CLIENT_ID: opt(z.string()),
  OAUTH_CLIENT_SECRET: opt(z.string()),
  // Tokens and the PKCE verifier travel to the issuer: TLS only (RFC 9700 §2.6).
  OAUTH_ISSUER: opt(z.url({ protocol: /^https$/ })),
  OAUTH_REDIRECT_URI: opt(z.url({ protocol: /^https?$/ })),
  OAUTH_SCOPES: opt(
    z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+( +[\x21\x23-\x5b\x5d-\x7e]+)*$/, 'space-separated scopes'),
  ),
  OAUTH_IMAP_URL: opt(z.url({ protocol: /^imaps?$/ })),
  OAUTH_SMTP_URL: opt(z.url({ protocol: /^smtps?$/ })),
});

/**
 * `TRUST_PROXY`: unset/`false` → X-Forwarded-For is ignored; `true` → trust every hop;
 * a number → trust that many hops; otherwise a comma list of addresses/CIDRs.
 */
function parseTrustProxy(raw: string | undefined): boolean | string[] | ((addr: string, hop: number) => boolean) {
  if (raw === undefined || raw === 'false' || raw === '0') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    return (_addr, hop) => hop < hops;
  }
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const port = e.PORT ?? 3000;
  const host = e.HOST ?? '127.0.0.1';
  const baseUrl = (e.BASE_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/$/, '');
  const llmProvider = e.LLM_PROVIDER ?? 'none';
  if (llmProvider === 'anthropic' && !e.LLM_API_KEY) {
    throw new ConfigError('invalid configuration:\n  LLM_API_KEY: required when LLM_PROVIDER=anthropic');
  }
  const config = {
    port,
    host,
    baseUrl,
    apiUrl: (e.API_URL ?? baseUrl).replace(/\/$/, ''),
    dataDir: resolve(e.DATA_DIR ?? './data'),
    databaseUrl: e.DATABASE_URL,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM ?? `optout <no-reply@${mailDomain(baseUrl)}>`,
    llm: {
      provider: llmProvider,
      apiKey: e.LLM_API_KEY,
      baseUrl:
        e.LLM_BASE_URL ?? (llmProvider === 'anthropic' ? 'https://api.anthropic.com' : 'https://api.openai.com/v1'),
      model: e.LLM_MODEL ?? (llmProvider === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-4o-mini'),
      timeoutMs: e.LLM_TIMEOUT_MS ?? 20_000,
    },
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    outboundAllowHosts: e.OUTBOUND_ALLOW_HOSTS,
    /** when every catalog link is re-verified (cron, UTC); null: never on a schedule */
    linkCheckSchedule: e.LINK_CHECK_SCHEDULE === 'off' ? null : (e.LINK_CHECK_SCHEDULE ?? WEEKLY_CRON),
    allowedOrigins: e.ALLOWED_ORIGINS.map((o) => new URL(o).origin),
    scanDailyLimit: e.SCAN_DAILY_LIMIT ?? 3,
    scanCaps: {
      messages: e.SCAN_MAX_MESSAGES ?? DEFAULT_SCAN_CAPS.messages,
      headerBytes: e.SCAN_MAX_HEADER_BYTES ?? DEFAULT_SCAN_CAPS.headerBytes,
      subscriptions: e.SCAN_MAX_SUBSCRIPTIONS ?? DEFAULT_SCAN_CAPS.subscriptions,
    },
    limits: {
      /** failed password sign-ins per mailbox address per hour */
      signInFailuresPerAddress: e.SIGNIN_FAILURES_PER_ADDRESS ?? 5,
      /** failed password sign-ins per client IP per hour */
      signInFailuresPerIp: e.SIGNIN_FAILURES_PER_IP ?? 20,
      /** scans started per client IP per hour */
      scansPerIp: e.SCANS_PER_IP ?? 30,
      /** /ws connections open at once per client IP */
      connectionsPerIp: e.WS_CONNECTIONS_PER_IP ?? 20,
      /** subscriptions acted on (unsubscribe, not dry runs) per client IP per hour */
      unsubscribesPerIp: e.UNSUBSCRIBES_PER_IP ?? 2000,
      /** link-check requests per client IP per minute */
      linkChecksPerIp: e.LINK_CHECKS_PER_IP ?? 30,
    },
    operatorName: e.OPERATOR_NAME,
    securityContact: e.SECURITY_CONTACT ?? `mailto:security@${mailDomain(baseUrl)}`,
    /** SIGTERM: how long running scans and unsubscribe batches get to finish (docs/deploy.md) */
    drainMs: (e.DRAIN_SECONDS ?? 20) * 1000,
    logLevel: e.LOG_LEVEL ?? 'info',
    logSlowMs: e.LOG_SLOW_MS ?? 1000,
    oauth: {
      clientId: e.OAUTH_CLIENT_ID,
      clientSecret: e.OAUTH_CLIENT_SECRET,
      issuer: e.OAUTH_ISSUER ?? MICROSOFT_DEFAULTS.issuer,
      redirectUri: e.OAUTH_REDIRECT_URI ?? `${baseUrl}/auth/microsoft/callback`,
      scopes: (e.OAUTH_SCOPES ?? MICROSOFT_DEFAULTS.scopes).split(/ +/),
      imap: mailEndpoint(e.OAUTH_IMAP_URL ?? MICROSOFT_DEFAULTS.imapUrl),
      smtp: mailEndpoint(e.OAUTH_SMTP_URL ?? MICROSOFT_DEFAULTS.smtpUrl),
    },
  };
  return deepFreeze(config);
}

export type Config = ReturnType<typeof loadConfig>;

/** The host of BASE_URL when it is a name; an address literal is no mail domain, so `localhost`. */
function mailDomain(baseUrl: string): string {
  const host = new URL(baseUrl).hostname;
  return /[a-z]/i.test(host) && !host.includes(':') ? host : 'localhost';
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function deepFreeze<T>(o: T): Readonly<T> {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
