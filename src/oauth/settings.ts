/**
 * The defaults of the OAuth 2.0 mailbox provider (Microsoft) and the parsing of its mail-server
 * URLs, for src/config.ts. docs/microsoft.md explains each setting to an operator.
 */
import type { Endpoint } from '../mailbox/providers.ts';

export const MICROSOFT_DEFAULTS = {
  /**
   * The bare multi-tenant issuer: discovery from it accepts the `{tenantid}` issuer of each
   * tenant's tokens (openid-client handles that form; a `.well-known` URL would not).
   */
  issuer: 'https://login.microsoftonline.com/common/v2.0',
  /** OpenID Connect, a refresh token, and Outlook's IMAP and SMTP scopes (not Microsoft Graph's) */
  scopes:
    'openid profile email offline_access https://outlook.office.com/IMAP.AccessAsUser.All https://outlook.office.com/SMTP.Send',
  imapUrl: 'imaps://outlook.office365.com:993',
  smtpUrl: 'smtp://smtp.office365.com:587',
} as const;

/**
 * `imaps://host[:993]` → implicit TLS; `imap://host[:143]` → STARTTLS (required, RFC 8314 §3);
 * `smtps://host[:465]` → implicit TLS; `smtp://host[:587]` → STARTTLS (required).
 * The scheme has been checked by the config schema.
 */
export function mailEndpoint(url: string): Endpoint {
  const u = new URL(url);
  const scheme = u.protocol.slice(0, -1);
  const implicit = scheme === 'imaps' || scheme === 'smtps';
  const defaultPort = { imaps: 993, imap: 143, smtps: 465, smtp: 587 }[scheme] ?? 0;
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  return { host, port: u.port ? Number(u.port) : defaultPort, tls: implicit ? 'implicit' : 'starttls' };
}

export type OAuthSettings = {
  clientId: string | undefined;
  clientSecret: string | undefined;
  issuer: string;
  redirectUri: string;
  scopes: readonly string[];
  imap: Endpoint;
  smtp: Endpoint;
};
