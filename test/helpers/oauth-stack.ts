/**
 * optout configured for Microsoft sign-in against the test identity provider (oidc-idp.ts),
 * through the OAUTH_* variables exactly as an operator sets them, listening on loopback so a
 * browser (http-browser.ts, or Chromium) can go back and forth between the two. Optionally a
 * private Dovecot whose oauth2 passdb checks the tokens at that provider.
 *
 *   const s = await startOAuthStack({ mail: { 'alice@example.test': messages } });
 *   await signIn(createHttpBrowser(), `${s.base}/auth/microsoft/start`, 'alice@example.test');
 *   await s.close();
 */

import { type StartOptions, startTestApp, type TestApp } from './app.ts';
import { type Dovecot, type MaildirMessage, startDovecot } from './dovecot.ts';
import { freePorts } from './dovecot-process.ts';
import { type Idp, type IdpOptions, startIdp } from './oidc-idp.ts';
import { trustTestCa } from './tls-ca.ts';

export interface OAuthStack {
  idp: Idp;
  app: TestApp;
  /** optout's BASE_URL */
  base: string;
  dovecot: Dovecot | null;
  /** the env optout was started with (for a second instance) */
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface OAuthStackOptions {
  idp?: IdpOptions;
  /** OAuth-only mailbox users → their INBOX; starts Dovecot with the oauth2 passdb */
  mail?: Record<string, MaildirMessage[]>;
  /** more optout settings (they win over the stack's) */
  env?: Record<string, string>;
  /** more loopback `host:port`s the outbound guard lets optout reach (beside the stack's Dovecot) */
  allowHosts?: string[];
  /** leave OAUTH_CLIENT_ID unset: the provider is not configured */
  unconfigured?: boolean;
  databaseUrl?: string;
  runtime?: StartOptions['runtime'];
}

/** A free port for optout, and the test identity provider with optout registered at that address. */
export async function idpForNewPort(opts: IdpOptions = {}): Promise<{ port: number; base: string; idp: Idp }> {
  trustTestCa();
  const [port] = await freePorts(1);
  const base = `http://127.0.0.1:${port}`;
  const idp = await startIdp({
    redirectUris: [`${base}/auth/microsoft/callback`],
    postLogoutRedirectUris: [`${base}/`],
    ...opts,
  });
  return { port: port!, base, idp };
}

export async function startOAuthStack(opts: OAuthStackOptions = {}): Promise<OAuthStack> {
  const { port, base, idp } = await idpForNewPort(opts.idp);
  let dovecot: Dovecot | null = null;
  try {
    if (opts.mail) {
      dovecot = await startDovecot({
        users: Object.entries(opts.mail).map(([user, inbox]) => ({ user, mailboxes: { INBOX: inbox } })),
        oauth2Introspection: idp.introspection,
      });
    }
    const env: Record<string, string> = {
      PORT: String(port),
      BASE_URL: base,
      OAUTH_ISSUER: idp.issuer,
      ...(opts.unconfigured ? {} : { OAUTH_CLIENT_ID: idp.clientId }),
      ...(opts.idp?.clientSecret ? { OAUTH_CLIENT_SECRET: opts.idp.clientSecret } : {}),
      ...(dovecot ? { OAUTH_IMAP_URL: `imaps://127.0.0.1:${dovecot.imapsPort}` } : {}),
      OUTBOUND_ALLOW_HOSTS: [...(dovecot ? [`127.0.0.1:${dovecot.imapsPort}`] : []), ...(opts.allowHosts ?? [])].join(
        ',',
      ),
      ...opts.env,
    };
    const app = await startTestApp({ env, databaseUrl: opts.databaseUrl, runtime: opts.runtime });
    await app.app.listen({ port, host: '127.0.0.1' });
    return {
      idp,
      app,
      base,
      dovecot,
      env,
      async close() {
        await app.close();
        await dovecot?.stop();
        await idp.stop();
      },
    };
  } catch (err) {
    await dovecot?.stop();
    await idp.stop();
    throw err;
  }
}
