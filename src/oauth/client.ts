/**
 * optout as an OAuth 2.0 / OpenID Connect client of the identity provider (Microsoft by
 * default), through openid-client: discovery, the authorization request with PKCE (RFC 7636),
 * the code exchange, refresh (RFC 6749 §6), the device authorization request (RFC 8628 §3.1),
 * revocation (RFC 7009) and the end-session URL. Every call answers a value: tokens, or one of
 * the catalogued failures (errors.ts), and the provider's answer is logged for the operator
 * without any token in it.
 */
import type { FastifyBaseLogger as Logger } from 'fastify';
import type * as oidc from 'openid-client';
import { type OAuthFailure, oauthFailure } from './errors.ts';
import type { OAuthSettings } from './settings.ts';

/** What a token endpoint answered, reduced to what optout keeps (in memory only). */
export interface TokenSet {
  accessToken: string;
  refreshToken: string | undefined;
  idToken: string | undefined;
  /** when the access token expires (ms since the epoch); unknown lifetimes count as one hour */
  expiresAt: number;
  /** the ID token's claims, when there was one */
  claims: oidc.IDToken | undefined;
}

export type Result<T> = ({ ok: true } & T) | OAuthFailure;

export type Grant = 'code' | 'refresh' | 'device' | 'discovery' | 'revocation';

export interface OAuthClient {
  readonly settings: OAuthSettings;
  /** the discovered provider (cached after the first success), or why not */
  configuration(): Promise<Result<{ config: oidc.Configuration }>>;
  /** the authorization URL for one browser sign-in; the caller keeps the checks */
  authorizationUrl(checks: { state: string; nonce: string; verifier: string }): Promise<Result<{ url: URL }>>;
  /** exchanges the code in the callback URL (state, nonce and PKCE checked by openid-client) */
  exchangeCode(
    callback: URL,
    checks: { state: string; nonce: string; verifier: string },
  ): Promise<Result<{ tokens: TokenSet }>>;
  refresh(refreshToken: string): Promise<Result<{ tokens: TokenSet }>>;
  toTokens(r: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): TokenSet;
  /** RFC 7009, when the provider has a revocation endpoint (Microsoft has none); never fails */
  revoke(token: string): Promise<void>;
  /** where to send a person to end the provider's session too, when the provider says */
  endSessionUrl(idToken: string | undefined, returnTo: string): Promise<string | null>;
  /** maps anything openid-client threw to a catalogued failure, and logs what the operator needs */
  failure(err: unknown, grant: Grant): OAuthFailure;
}

/**
 * openid-client (with jose beneath it, ~50 modules) loads with the first sign-in, not with every
 * start of a service that may never be configured for one (docs/benchmarks.md, "First start").
 */
export const openidClient = () => import('openid-client');

/** HTTP requests to the provider give up after this long (openid-client's default is 30 s). */
const TIMEOUT_S = 15;

export function createOAuthClient(settings: OAuthSettings, logger: Logger): OAuthClient {
  let discovered: oidc.Configuration | null = null;
  let pending: Promise<oidc.Configuration> | null = null;

  function failure(err: unknown, grant: Grant): OAuthFailure {
    const e = err as { name?: string; code?: string; error?: string; status?: number; cause?: unknown };
    // the provider's OAuth error code and description carry no token; log them for the operator
    const detail = {
      grant,
      oauth_error: e.error,
      description: (err as { error_description?: string }).error_description,
      status: e.status ?? (e.cause instanceof Response ? e.cause.status : undefined),
      kind: e.name,
      code: e.code,
    };
    const out = classify(e, grant, detail.status);
    logger[out.code === 'OAUTH_PROVIDER_ERROR' ? 'error' : 'info'](
      { ...detail, result: out.code },
      'identity provider request failed',
    );
    return out;
  }

  async function configuration(): Promise<Result<{ config: oidc.Configuration }>> {
    if (discovered) return { ok: true, config: discovered };
    const oidc = await openidClient();
    const clientAuth = settings.clientSecret ? oidc.ClientSecretPost(settings.clientSecret) : oidc.None();
    // One discovery at a time; a failed one is not cached, so the next call tries again.
    pending ??= oidc.discovery(new URL(settings.issuer), settings.clientId ?? '', undefined, clientAuth, {
      timeout: TIMEOUT_S,
    });
    try {
      discovered = await pending;
      return { ok: true, config: discovered };
    } catch (err) {
      return failure(err, 'discovery');
    } finally {
      pending = null;
    }
  }

  function toTokens(r: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): TokenSet {
    return {
      accessToken: r.access_token,
      refreshToken: r.refresh_token,
      idToken: r.id_token,
      expiresAt: Date.now() + (r.expiresIn() ?? 3600) * 1000,
      claims: r.claims(),
    };
  }

  return {
    settings,
    configuration,
    failure,
    toTokens,
    async authorizationUrl({ state, nonce, verifier }) {
      const c = await configuration();
      if (!c.ok) return c;
      const oidc = await openidClient();
      const url = oidc.buildAuthorizationUrl(c.config, {
        redirect_uri: settings.redirectUri,
        scope: settings.scopes.join(' '),
        response_type: 'code',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { ok: true, url };
    },
    async exchangeCode(callback, { state, nonce, verifier }) {
      const c = await configuration();
      if (!c.ok) return c;
      const oidc = await openidClient();
      try {
        const r = await oidc.authorizationCodeGrant(c.config, callback, {
          pkceCodeVerifier: verifier,
          expectedState: state,
          expectedNonce: nonce,
          idTokenExpected: true,
        });
        return { ok: true, tokens: toTokens(r) };
      } catch (err) {
        return failure(err, 'code');
      }
    },
    async refresh(refreshToken) {
      const c = await configuration();
      if (!c.ok) return c;
      const oidc = await openidClient();
      try {
        return { ok: true, tokens: toTokens(await oidc.refreshTokenGrant(c.config, refreshToken)) };
      } catch (err) {
        return failure(err, 'refresh');
      }
    },
    async revoke(token) {
      const c = await configuration();
      if (!c.ok || !c.config.serverMetadata().revocation_endpoint) return;
      const oidc = await openidClient();
      await oidc.tokenRevocation(c.config, token).catch((err: unknown) => failure(err, 'revocation'));
    },
    async endSessionUrl(idToken, returnTo) {
      const c = await configuration();
      if (!c.ok || !c.config.serverMetadata().end_session_endpoint) return null;
      const params: Record<string, string> = { post_logout_redirect_uri: returnTo };
      if (idToken) params.id_token_hint = idToken;
      const oidc = await openidClient();
      return oidc.buildEndSessionUrl(c.config, params).href;
    },
  };
}

/**
 * openid-client's errors → the catalogue. RFC 6749 §5.2 and RFC 8628 §3.5 error codes come as
 * ResponseBodyError (token endpoint) or AuthorizationResponseError (the callback's query);
 * a network failure or timeout is a TypeError/AbortError/TimeoutError; an answer that is not
 * OAuth at all (an HTML error page, a 5xx) is a ClientError.
 */
function classify(
  e: { name?: string; code?: string; error?: string },
  grant: Grant,
  status: number | undefined,
): OAuthFailure {
  const error = e.error;
  if (error === 'access_denied' || error === 'authorization_declined') {
    // authorization_declined: Microsoft's word for a refused device code (its device-code docs)
    return oauthFailure('OAUTH_CONSENT_REFUSED');
  }
  if (
    error === 'expired_token' ||
    (grant === 'device' && (error === 'invalid_grant' || error === 'bad_verification_code'))
  ) {
    return oauthFailure('OAUTH_DEVICE_CODE_EXPIRED');
  }
  if (error === 'invalid_grant' || error === 'interaction_required' || error === 'login_required') {
    // RFC 6749 §5.2: the refresh token (or code) is invalid, expired or revoked
    return oauthFailure(grant === 'code' ? 'OAUTH_SIGN_IN_FAILED' : 'OAUTH_SESSION_EXPIRED');
  }
  if (error === 'temporarily_unavailable' || error === 'server_error' || (status !== undefined && status >= 500)) {
    return oauthFailure('OAUTH_PROVIDER_UNAVAILABLE');
  }
  if (error) return oauthFailure('OAUTH_PROVIDER_ERROR');
  if (e.name === 'TypeError' || e.name === 'AbortError' || e.name === 'TimeoutError') {
    return oauthFailure('OAUTH_PROVIDER_UNAVAILABLE');
  }
  if (e.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' || e.code === 'OAUTH_RESPONSE_IS_NOT_JSON') {
    return oauthFailure('OAUTH_PROVIDER_UNAVAILABLE');
  }
  // a state, nonce or ID-token check failed: this callback does not belong to this sign-in
  if (grant === 'code') return oauthFailure('OAUTH_SIGN_IN_FAILED');
  return grant === 'discovery' ? oauthFailure('OAUTH_PROVIDER_UNAVAILABLE') : oauthFailure('OAUTH_PROVIDER_ERROR');
}
