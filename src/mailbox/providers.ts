/**
 * Mailbox providers that sign in with an app password, and `custom` for any IMAP server.
 * Host names and ports are the providers' published IMAP/SMTP settings; `appPasswordUrl`
 * points at the provider's own page for creating an app password (never a third party).
 */
export type TlsMode = 'implicit' | 'starttls';

export interface Endpoint {
  host: string;
  port: number;
  tls: TlsMode;
}

export interface ProviderPreset {
  id: string;
  name: string;
  imap: Endpoint;
  smtp: Endpoint;
  auth: 'password';
  /** where a person creates the app password this provider requires for IMAP */
  appPasswordUrl: string | null;
  appPasswordHelp: string;
}

const ep = (host: string, port: number, tls: TlsMode): Endpoint => ({ host, port, tls });

export const PROVIDERS: readonly ProviderPreset[] = [
  {
    id: 'gmail',
    name: 'Gmail',
    imap: ep('imap.gmail.com', 993, 'implicit'),
    smtp: ep('smtp.gmail.com', 465, 'implicit'),
    auth: 'password',
    appPasswordUrl: 'https://myaccount.google.com/apppasswords',
    appPasswordHelp: 'Turn on 2-Step Verification, then create an app password under Security › App passwords.',
  },
  {
    id: 'yahoo',
    name: 'Yahoo Mail',
    imap: ep('imap.mail.yahoo.com', 993, 'implicit'),
    smtp: ep('smtp.mail.yahoo.com', 465, 'implicit'),
    auth: 'password',
    appPasswordUrl: 'https://login.yahoo.com/account/security',
    appPasswordHelp: 'Open Account security and choose "Generate app password".',
  },
  {
    id: 'icloud',
    name: 'iCloud Mail',
    imap: ep('imap.mail.me.com', 993, 'implicit'),
    smtp: ep('smtp.mail.me.com', 587, 'starttls'),
    auth: 'password',
    appPasswordUrl: 'https://account.apple.com',
    appPasswordHelp: 'Sign in to your Apple Account, open Sign-In and Security › App-Specific Passwords.',
  },
  {
    id: 'aol',
    name: 'AOL Mail',
    imap: ep('imap.aol.com', 993, 'implicit'),
    smtp: ep('smtp.aol.com', 465, 'implicit'),
    auth: 'password',
    appPasswordUrl: 'https://login.aol.com/account/security',
    appPasswordHelp: 'Open Account security and choose "Generate app password".',
  },
  {
    id: 'fastmail',
    name: 'Fastmail',
    imap: ep('imap.fastmail.com', 993, 'implicit'),
    smtp: ep('smtp.fastmail.com', 465, 'implicit'),
    auth: 'password',
    appPasswordUrl: 'https://app.fastmail.com/settings/security/devicekeys',
    appPasswordHelp: 'Settings › Privacy & Security › App passwords: create one with IMAP and SMTP access.',
  },
  {
    id: 'zoho',
    name: 'Zoho Mail',
    imap: ep('imap.zoho.com', 993, 'implicit'),
    smtp: ep('smtp.zoho.com', 465, 'implicit'),
    auth: 'password',
    appPasswordUrl: 'https://accounts.zoho.com/home#security/app_password',
    appPasswordHelp: 'Enable IMAP access in Mail settings, then create an application-specific password.',
  },
  {
    id: 'gmx',
    name: 'GMX',
    imap: ep('imap.gmx.com', 993, 'implicit'),
    smtp: ep('mail.gmx.com', 587, 'starttls'),
    auth: 'password',
    appPasswordUrl: null,
    appPasswordHelp:
      'Allow IMAP access under E-mail settings › POP3 & IMAP; with two-factor sign-in, create an app password.',
  },
  {
    id: 'yandex',
    name: 'Yandex Mail',
    imap: ep('imap.yandex.com', 993, 'implicit'),
    smtp: ep('smtp.yandex.com', 465, 'implicit'),
    auth: 'password',
    appPasswordUrl: 'https://id.yandex.com/security/app-passwords',
    appPasswordHelp: 'Allow IMAP in mail settings, then create an app password for "Mail".',
  },
];

/**
 * Outlook.com and Microsoft 365 sign in with OAuth 2.0 (src/oauth/, docs/microsoft.md), never
 * with a password; their mail servers come from the OAUTH_IMAP_URL / OAUTH_SMTP_URL settings.
 */
export const OAUTH_PROVIDER = { id: 'outlook', name: 'Outlook / Microsoft 365' } as const;

export const PROVIDER_IDS = [...PROVIDERS.map((p) => p.id), OAUTH_PROVIDER.id, 'custom'] as const;

export function presetFor(id: string): ProviderPreset | undefined {
  return PROVIDERS.find((p) => p.id === id);
}
