/**
 * What the trust pages (/privacy, /security, /about) say about this installation, taken from
 * the configuration and the code rather than typed into the pages: the session limits, the
 * header fields a scan reads, whether Microsoft sign-in and a language model are set up, and
 * who to write to.
 */
import { DEFAULT_CHANNEL_SETTINGS } from '../../channel/ws-route.ts';
import type { Config } from '../../config.ts';
import { HEADER_FIELDS } from '../../mailbox/scan.ts';

export interface TrustFacts {
  host: string;
  baseUrl: string;
  operator: string | null;
  contact: string;
  /** the contact as a person reads it: the address of a mailto, else the URI */
  contactText: string;
  sessionMinutes: number;
  keepMinutes: number;
  headerFields: readonly string[];
  dailyLimit: number;
  microsoft: { issuer: string } | null;
  llm: { provider: string; endpoint: string } | null;
  smtp: boolean;
  postgres: boolean;
}

export function trustFacts(config: Config): TrustFacts {
  const contact = config.securityContact;
  return {
    host: new URL(config.baseUrl).host,
    baseUrl: config.baseUrl,
    operator: config.operatorName ?? null,
    contact,
    contactText: contact.startsWith('mailto:') ? contact.slice('mailto:'.length) : contact,
    sessionMinutes: DEFAULT_CHANNEL_SETTINGS.lifetimeMs / 60_000,
    keepMinutes: DEFAULT_CHANNEL_SETTINGS.keepMs / 60_000,
    headerFields: HEADER_FIELDS,
    dailyLimit: config.scanDailyLimit,
    microsoft: config.oauth.clientId ? { issuer: new URL(config.oauth.issuer).host } : null,
    llm:
      config.llm.provider === 'none'
        ? null
        : { provider: config.llm.provider, endpoint: new URL(config.llm.baseUrl).host },
    smtp: Boolean(config.smtpUrl),
    postgres: Boolean(config.databaseUrl),
  };
}

/** "Microsoft-Sign-In" style header names as the RFCs write them. */
export const headerName = (f: string) => f.replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase());
