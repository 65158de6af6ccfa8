/**
 * One signed-in Microsoft account: its address (from the ID token) and its tokens, in this
 * process's memory only. Whoever needs to reach the mailbox asks for an access token just
 * before connecting; an access token that has expired, or will within a short margin, is
 * refreshed first (RFC 6749 §6), so a scan, an unsubscribe batch or an audit that outlives it
 * never asks the person to sign in again. A rotated refresh token replaces the old one (a
 * provider that rotates treats a replay of the old one as theft and revokes the grant). Only
 * one refresh runs at a time; everyone waiting gets its result.
 */
import type { OAuthClient, Result, TokenSet } from './client.ts';
import { oauthFailure } from './errors.ts';

export interface AccessToken {
  token: string;
  /** ms since the epoch */
  expiresAt: number;
}

export interface OAuthAccount {
  /** the mailbox address: the ID token's `email`, else `preferred_username` */
  readonly email: string;
  /** false once forgotten, or once the provider refused the refresh token */
  readonly active: boolean;
  /** a usable access token, refreshed first when it is (nearly) expired */
  accessToken(): Promise<Result<AccessToken>>;
  /**
   * The mail server refused `refused`: a fresh token, unless another caller already replaced it.
   * Refreshes at most once per refused token.
   */
  renew(refused: string): Promise<Result<AccessToken>>;
  /** drops every token; with `revoke` (sign-out) also revokes the refresh token where the provider can */
  forget(revoke?: boolean): Promise<void>;
  /** the last ID token, for the provider's end-session request (id_token_hint) */
  readonly idToken: string | undefined;
}

/** Refresh this long before expiry, or a quarter of a shorter lifetime. */
const MARGIN_MS = 60_000;

export function createAccount(client: OAuthClient, first: TokenSet): Result<{ account: OAuthAccount }> {
  const claims: Record<string, unknown> = first.claims ?? {};
  const address = [claims.email, claims.preferred_username, claims.upn].find(
    (v): v is string => typeof v === 'string' && /^[^@\s]+@[^@\s]+$/.test(v),
  );
  if (!address) {
    return oauthFailure(
      'OAUTH_SIGN_IN_FAILED',
      'Microsoft did not tell optout which mailbox address this account has, so it cannot sign in to the mailbox.',
    );
  }
  let tokens: TokenSet | null = first;
  const marginFor = (t: TokenSet) => Math.max(0, Math.min(MARGIN_MS, (t.expiresAt - Date.now()) / 4));
  let margin = marginFor(first);
  let refreshing: Promise<Result<AccessToken>> | null = null;

  const current = (): AccessToken | null =>
    tokens ? { token: tokens.accessToken, expiresAt: tokens.expiresAt } : null;
  const ended = () => oauthFailure('OAUTH_SESSION_EXPIRED');

  function refresh(): Promise<Result<AccessToken>> {
    refreshing ??= (async (): Promise<Result<AccessToken>> => {
      const held = tokens;
      if (!held?.refreshToken) {
        // no refresh token (offline_access not granted): the sign-in ends with its access token
        return ended();
      }
      const r = await client.refresh(held.refreshToken);
      if (tokens !== held) return tokens ? { ok: true, ...current()! } : ended(); // forgotten meanwhile
      if (!r.ok) {
        if (r.code === 'OAUTH_SESSION_EXPIRED') tokens = null; // revoked or expired: nothing left to use
        return r;
      }
      tokens = {
        ...r.tokens,
        // RFC 6749 §6: the provider MAY issue a new refresh token; if it did, the old one is dead
        refreshToken: r.tokens.refreshToken ?? held.refreshToken,
        idToken: r.tokens.idToken ?? held.idToken,
      };
      margin = marginFor(tokens);
      return { ok: true, ...current()! };
    })().finally(() => {
      refreshing = null;
    });
    return refreshing;
  }

  const account: OAuthAccount = {
    email: address,
    get active() {
      return tokens !== null;
    },
    get idToken() {
      return tokens?.idToken;
    },
    async accessToken() {
      if (refreshing) return refreshing;
      const now = current();
      if (!now) return ended();
      if (now.expiresAt - margin > Date.now()) return { ok: true, ...now };
      const r = await refresh();
      // The provider is down but the token still has a little life left: use it.
      if (!r.ok && r.code === 'OAUTH_PROVIDER_UNAVAILABLE' && now.expiresAt > Date.now() && tokens) {
        return { ok: true, ...now };
      }
      return r;
    },
    async renew(refused) {
      if (refreshing) return refreshing;
      const now = current();
      if (!now) return ended();
      if (now.token !== refused) return { ok: true, ...now };
      return refresh();
    },
    async forget(revoke = true) {
      const held = tokens;
      tokens = null;
      if (revoke && held?.refreshToken) await client.revoke(held.refreshToken);
    },
  };
  return { ok: true, account };
}
