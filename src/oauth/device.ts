/**
 * The device authorization grant (RFC 8628) for people who sign in on another device while an
 * agent waits: start() asks the provider for a user code (§3.1–3.2) and returns at once with
 * what to show; the engine then polls the token endpoint (§3.4) until the person approves, the
 * code expires, or they refuse. openid-client does the polling by the book — it waits
 * `interval` seconds (5 when the provider names none) before each request and adds 5 seconds
 * on `slow_down` (§3.5); a provider that cannot be reached is retried here with the interval
 * doubled each time (§3.5: "SHOULD … exponential backoff"), until the code expires.
 *
 *   const started = await startDeviceSignIn(client);
 *   if (started.ok) { show(started.flow.user_code, started.flow.verification_uri);
 *     const r = await started.flow.result; }   // r.ok → r.account
 */
import type * as oidc from 'openid-client';
import { createAccount, type OAuthAccount } from './account.ts';
import { type OAuthClient, openidClient, type Result } from './client.ts';
import { oauthFailure } from './errors.ts';

export interface DeviceSignIn {
  verification_uri: string;
  /** the URI with the code already in it, when the provider offers one (Microsoft does not) */
  verification_uri_complete?: string;
  user_code: string;
  /** ISO 8601: the code is useless after this */
  expires_at: string;
  /** seconds between polls, as the provider asked (5 when it did not say) */
  interval: number;
  /** the provider's own instructions, when it sends some (Microsoft's `message`) */
  message?: string;
  /** settles once: the signed-in account, or why there is none */
  result: Promise<Result<{ account: OAuthAccount }>>;
  /** stops polling (the result then says the sign-in was cancelled) */
  cancel(): void;
}

/** Polls never come closer than this after a network failure doubled the interval. */
const MAX_BACKOFF_S = 60;

export async function startDeviceSignIn(client: OAuthClient): Promise<Result<{ flow: DeviceSignIn }>> {
  const c = await client.configuration();
  if (!c.ok) return c;
  const { initiateDeviceAuthorization, pollDeviceAuthorizationGrant } = await openidClient();
  let answer: oidc.DeviceAuthorizationResponse;
  try {
    answer = await initiateDeviceAuthorization(c.config, { scope: client.settings.scopes.join(' ') });
  } catch (err) {
    return client.failure(err, 'device');
  }
  const expiresAt = Date.now() + answer.expires_in * 1000;
  const interval = answer.interval ?? 5;
  const cancelled = new AbortController();

  const config = c.config;
  // The provider says `expired_token` itself once the code is dead; give it a little while
  // past expires_in to say so before giving up on our side.
  const deadline = expiresAt + (interval + 5) * 1000;

  async function poll(): Promise<Result<{ account: OAuthAccount }>> {
    let wait = interval;
    let unreachable = false;
    for (;;) {
      if (Date.now() >= expiresAt) {
        // The code ran out while the provider could not be reached: say that, not "expired".
        return oauthFailure(unreachable ? 'OAUTH_PROVIDER_UNAVAILABLE' : 'OAUTH_DEVICE_CODE_EXPIRED');
      }
      try {
        const tokens = await pollDeviceAuthorizationGrant(config, { ...answer, interval: wait }, undefined, {
          signal: AbortSignal.any([cancelled.signal, AbortSignal.timeout(deadline - Date.now())]),
        });
        return createAccount(client, client.toTokens(tokens));
      } catch (err) {
        if (cancelled.signal.aborted) return oauthFailure('OAUTH_SIGN_IN_FAILED', 'The sign-in was cancelled.');
        // our own deadline: the provider kept answering "pending" and never said expired_token
        if (Date.now() >= deadline) return oauthFailure('OAUTH_DEVICE_CODE_EXPIRED');
        const f = client.failure(err, 'device');
        if (f.code !== 'OAUTH_PROVIDER_UNAVAILABLE') return f;
        unreachable = true;
        wait = Math.min(wait * 2, MAX_BACKOFF_S);
      }
    }
  }

  const flow: DeviceSignIn = {
    verification_uri: answer.verification_uri,
    ...(answer.verification_uri_complete ? { verification_uri_complete: answer.verification_uri_complete } : {}),
    user_code: answer.user_code,
    expires_at: new Date(expiresAt).toISOString(),
    interval,
    ...(typeof answer.message === 'string' ? { message: answer.message } : {}),
    result: poll(),
    cancel: () => cancelled.abort(),
  };
  return { ok: true, flow };
}
