/**
 * A real OAuth 2.0 / OpenID Connect identity provider for tests: panva's oidc-provider on
 * loopback, standing in for Microsoft's identity platform. The issuer is https with the test
 * CA's certificate (tls-ca.ts), so optout's code talks to it exactly as to Microsoft (TLS
 * verified, no insecure-request switch). A second, plain-HTTP listener on loopback serves the
 * same provider for the mail servers' back channel (Dovecot's oauth2 passdb and the SMTP sink
 * introspect tokens there).
 *
 *   const idp = await startIdp({ redirectUris: [`${base}/auth/microsoft/callback`] });
 *   // OAUTH_ISSUER=idp.issuer OAUTH_CLIENT_ID=idp.clientId; Dovecot: idp.introspection
 *   await idp.stop();
 *
 * Configured the way Microsoft behaves where oidc-provider's defaults differ:
 * - a refresh token whenever the client may use the refresh_token grant (Microsoft issues one
 *   for `offline_access` without `prompt=consent`), rotated on every use, and replaying a
 *   rotated one revokes the whole grant (oidc-provider's default);
 * - the address in the ID token (`email`, `preferred_username`), not only at userinfo;
 * - the device authorization response carries `interval` (oidc-provider omits it; RFC 8628
 *   §3.2 then means 5 s), and `minPollSeconds` makes it answer `slow_down` (§3.5) to a poll
 *   that comes sooner than that.
 * Test accounts sign in on oidc-provider's development forms with any login: the login is
 * the account id and the address (`sub` = `email`), which is what Dovecot matches.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type Adapter, type AdapterPayload } from 'oidc-provider';
import { MICROSOFT_DEFAULTS } from '../../src/oauth/settings.ts';
import { certPath, keyPath } from './tls-ca.ts';

export const BACK_CHANNEL_CLIENT = { id: 'mail-servers', secret: 'mail-servers-secret' };

export interface IdpOptions {
  /** redirect URIs of the optout client (its BASE_URL/auth/microsoft/callback) */
  redirectUris?: string[];
  /** where the end-session endpoint may send the person back to */
  postLogoutRedirectUris?: string[];
  /** a confidential client instead of a public one (OAUTH_CLIENT_SECRET) */
  clientSecret?: string;
  /** seconds; default 3600 */
  accessTokenTtl?: number;
  /** seconds; default 600 */
  deviceCodeTtl?: number;
  /** the `interval` of device authorization responses, seconds; default 1 */
  deviceInterval?: number;
  /** polls of one device code closer together than this get `slow_down`; default: not enforced */
  minPollSeconds?: number;
  /** the scopes it knows; default: Microsoft's IMAP and SMTP scopes with the OIDC ones */
  scopes?: string[];
}

export interface Idp {
  issuer: string;
  clientId: string;
  /** https port of the issuer */
  port: number;
  /** plain-HTTP introspection URL with the back-channel client in its userinfo (for Dovecot) */
  introspection: string;
  /** RFC 7662 introspection of a token, as a mail server does it */
  introspect(token: string): Promise<{ active: boolean; sub?: string; client_id?: string; scope?: string }>;
  /** grant_type → successful token responses so far */
  grants: Map<string, number>;
  /** token-endpoint errors so far (the OAuth `error` codes) */
  grantErrors: string[];
  /** times (ms) at which a device code was polled */
  devicePolls: number[];
  /** grants revoked so far (RFC 7009 revocation of a refresh token revokes its grant) */
  revokedGrants: number;
  /** every access, refresh and ID token it has issued (for the tests that look for leaks) */
  issued: Set<string>;
  /** RFC 7009 revocation of one token (an access token: only that token dies) */
  revokeToken(token: string): Promise<void>;
  /** what "remove this app's access" at the provider does: every grant, token and code of the account */
  revokeAccount(accountId: string): Promise<void>;
  /** the provider goes away (connections refused) until up(); ports are kept */
  down(): Promise<void>;
  up(): Promise<void>;
  stop(): Promise<void>;
}

export const DEFAULT_IDP_SCOPES = MICROSOFT_DEFAULTS.scopes.split(' ');

export async function startIdp(opts: IdpOptions = {}): Promise<Idp> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const tlsServer = https.createServer({ key: readFileSync(keyPath), cert: readFileSync(certPath) });
  const plainServer = http.createServer();
  await Promise.all([listen(tlsServer, 0), listen(plainServer, 0)]);
  const port = (tlsServer.address() as AddressInfo).port;
  const backPort = (plainServer.address() as AddressInfo).port;
  const issuer = `https://127.0.0.1:${port}`;
  const store = createStore();
  const clientId = 'optout-test';
  const provider = new Provider(issuer, {
    adapter: store.adapter,
    clients: [
      {
        client_id: clientId,
        ...(opts.clientSecret
          ? { client_secret: opts.clientSecret, token_endpoint_auth_method: 'client_secret_post' }
          : { token_endpoint_auth_method: 'none' }),
        grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
        response_types: ['code'],
        redirect_uris: opts.redirectUris ?? ['http://127.0.0.1/auth/microsoft/callback'],
        post_logout_redirect_uris: opts.postLogoutRedirectUris ?? [],
      },
      // the mail servers: may only introspect (oidc-provider's default policy lets a
      // confidential client introspect any token)
      {
        client_id: BACK_CHANNEL_CLIENT.id,
        client_secret: BACK_CHANNEL_CLIENT.secret,
        grant_types: [],
        response_types: [],
        redirect_uris: [],
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: ['idp-test-cookie-key'] },
    scopes: opts.scopes ?? DEFAULT_IDP_SCOPES,
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'] },
    conformIdTokenClaims: false,
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: async () => ({ sub, email: sub, email_verified: true, preferred_username: sub, name: sub }),
    }),
    features: {
      devInteractions: { enabled: true },
      deviceFlow: { enabled: true },
      // the mail servers' client introspects, and the tests revoke, any token
      introspection: { enabled: true, allowedPolicy: async () => true },
      revocation: { enabled: true, allowedPolicy: async () => true },
      rpInitiatedLogout: { enabled: true },
    },
    pkce: { required: () => true },
    ttl: {
      AccessToken: opts.accessTokenTtl ?? 3600,
      DeviceCode: opts.deviceCodeTtl ?? 600,
      RefreshToken: 24 * 3600,
      Grant: 24 * 3600,
      Session: 3600,
      Interaction: 600,
      IdToken: 3600,
      AuthorizationCode: 60,
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    rotateRefreshToken: true,
  });
  provider.proxy = false;
  const grants = new Map<string, number>();
  const grantErrors: string[] = [];
  const devicePolls: number[] = [];
  const lastPoll = new Map<string, number>();
  provider.on('grant.success', (ctx) => {
    const type = String(ctx.oidc.params?.grant_type);
    grants.set(type, (grants.get(type) ?? 0) + 1);
  });
  provider.on('grant.error', (_ctx, err) => grantErrors.push((err as { error?: string }).error ?? 'unknown'));
  const counters = { revokedGrants: 0 };
  provider.on('grant.revoked', () => {
    counters.revokedGrants++;
  });
  const issued = new Set<string>();
  const interval = opts.deviceInterval ?? 1;
  provider.use(async (ctx, next) => {
    if (ctx.method === 'POST' && ctx.path === '/token') {
      // The body is read by oidc-provider later; peek at the raw form only for device polls.
      const body = await peekForm(ctx.req);
      if (body.get('grant_type') === 'urn:ietf:params:oauth:grant-type:device_code') {
        const now = Date.now();
        devicePolls.push(now);
        const code = body.get('device_code') ?? '';
        const before = lastPoll.get(code);
        lastPoll.set(code, now);
        if (opts.minPollSeconds && before !== undefined && now - before < opts.minPollSeconds * 1000 - 50) {
          // RFC 8628 §3.5: "slow_down … the interval MUST be increased by 5 seconds"
          grantErrors.push('slow_down');
          ctx.status = 400;
          ctx.body = { error: 'slow_down', error_description: 'polling too fast' };
          return;
        }
      }
    }
    await next();
    if (ctx.path === '/token' && ctx.status === 200 && ctx.body && typeof ctx.body === 'object') {
      const b = ctx.body as Record<string, unknown>;
      for (const k of ['access_token', 'refresh_token', 'id_token']) if (typeof b[k] === 'string') issued.add(b[k]);
    }
    if (ctx.path === '/device/auth' && ctx.status === 200 && ctx.body && typeof ctx.body === 'object') {
      ctx.body = { ...(ctx.body as object), interval };
    }
  });
  const callback = provider.callback();
  tlsServer.on('request', callback);
  plainServer.on('request', callback);

  const backAuth = `${BACK_CHANNEL_CLIENT.id}:${BACK_CHANNEL_CLIENT.secret}`;
  const introspection = `http://${backAuth}@127.0.0.1:${backPort}/token/introspection`;
  /** a form POST of `token` as the mail servers' client, on the plain back-channel listener */
  const backChannel = (path: string, token: string) =>
    fetch(`http://127.0.0.1:${backPort}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(backAuth).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token }),
    });
  return {
    issuer,
    clientId,
    port,
    introspection,
    grants,
    grantErrors,
    devicePolls,
    get revokedGrants() {
      return counters.revokedGrants;
    },
    issued,
    async introspect(token) {
      return (await backChannel('/token/introspection', token).then((r) => r.json())) as { active: boolean };
    },
    async revokeToken(token) {
      const res = await backChannel('/token/revocation', token);
      if (!res.ok) throw new Error(`revocation failed: ${res.status} ${await res.text()}`);
    },
    revokeAccount: (accountId) => store.revokeAccount(accountId),
    async down() {
      await Promise.all([close(tlsServer), close(plainServer)]);
    },
    async up() {
      await Promise.all([listen(tlsServer, port), listen(plainServer, backPort)]);
    },
    async stop() {
      await Promise.all([close(tlsServer), close(plainServer)]);
    },
  };
}

async function listen(server: http.Server, port: number): Promise<void> {
  if (server.listening) return;
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
}

function close(server: http.Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  server.closeAllConnections();
  return new Promise((r) => server.close(() => r()));
}

/**
 * Reads a urlencoded request body. oidc-provider then takes the body from `req.body` (its
 * documented fallback for an upstream body parser; it warns once).
 */
async function peekForm(req: http.IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  (req as http.IncomingMessage & { body?: string }).body = raw;
  return new URLSearchParams(raw);
}

/** oidc-provider's storage, in memory, with an index of grants per account. */
function createStore() {
  const data = new Map<string, { payload: AdapterPayload; expiresAt: number }>();
  const byUserCode = new Map<string, string>();
  const byUid = new Map<string, string>();
  const models = new Map<string, StoreAdapter>();
  const get = (key: string) => {
    const e = data.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= Date.now()) {
      data.delete(key);
      return undefined;
    }
    return e.payload;
  };
  class StoreAdapter implements Adapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
      models.set(model, this);
    }
    key = (id: string) => `${this.model}:${id}`;
    async upsert(id: string, payload: AdapterPayload, expiresIn?: number) {
      // Device codes outlive their expiry by a minute here, so a late poll gets oidc-provider's
      // `expired_token` (RFC 8628 §3.5), as from Microsoft, rather than an unknown-code error.
      const grace = this.model === 'DeviceCode' ? 60_000 : 0;
      data.set(this.key(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 + grace : Infinity });
      if (payload.userCode) byUserCode.set(payload.userCode, id);
      if (payload.uid) byUid.set(payload.uid, id);
    }
    async find(id: string) {
      return get(this.key(id));
    }
    async findByUserCode(userCode: string) {
      const id = byUserCode.get(userCode);
      return id ? get(this.key(id)) : undefined;
    }
    async findByUid(uid: string) {
      const id = byUid.get(uid);
      return id ? get(this.key(id)) : undefined;
    }
    async consume(id: string) {
      const p = get(this.key(id));
      if (p) p.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string) {
      data.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string) {
      for (const [key, e] of data)
        if (key.startsWith(`${this.model}:`) && e.payload.grantId === grantId) data.delete(key);
    }
  }
  return {
    adapter: StoreAdapter,
    async revokeAccount(accountId: string) {
      const grantIds = [...data]
        .filter(([key, e]) => key.startsWith('Grant:') && e.payload.accountId === accountId)
        .map(([key]) => key.slice('Grant:'.length));
      for (const grantId of grantIds) {
        for (const m of models.values()) await m.revokeByGrantId(grantId);
        data.delete(`Grant:${grantId}`);
      }
    },
  };
}
