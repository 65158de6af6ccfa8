/**
 * POST /agent/auth: a new registration (docs/agents.md). Anonymous → an api_key with the
 * pre-claim scopes and a claim token, at once. Verified email → a claim token only; the claim
 * email goes out now and the credential is issued when the claim completes.
 */

import { claimLinkMinutes, deliverClaimLink, newClaimAttempt, normalEmail } from './claim.ts';
import { type AgentContext, inSeconds, nowOf } from './context.ts';
import type { CredentialType } from './credentials.ts';
import { done, failed, type Outcome } from './errors.ts';
import { POST_CLAIM_SCOPES, PRE_CLAIM_SCOPES, type Scope } from './scopes.ts';
import { hintOf, hmac, newId, newSecret, PREFIX, sha256 } from './secrets.ts';

export type RegisterInput =
  | { type: 'anonymous'; requested_credential_type: CredentialType }
  | {
      type: 'identity_assertion';
      assertion_type: 'verified_email';
      assertion: string;
      requested_credential_type?: CredentialType;
    };

export interface ClaimPart {
  registration_id: string;
  claim_url: string;
  claim_token: string;
  claim_token_expires: string;
  post_claim_scopes: readonly Scope[];
}

export interface AnonymousRegistration extends ClaimPart {
  registration_type: 'anonymous';
  credential_type: 'api_key';
  credential: string;
  api_key: string;
  credential_expires: string | null;
  scopes: readonly Scope[];
}

export interface EmailRegistration extends ClaimPart {
  registration_type: 'email-verification';
  credential_type: CredentialType;
}

/**
 * Registrations that can no longer be used (revoked, unclaimed past their end, or claimed for
 * an access_token that has ended) are deleted this long afterwards, a few at a time as new
 * registrations come. A deleted credential is refused exactly like a revoked one.
 */
const PURGE_AFTER_MS = 7 * 24 * 3600 * 1000;

export async function register(
  ctx: AgentContext,
  input: RegisterInput,
): Promise<Outcome<AnonymousRegistration | EmailRegistration>> {
  const requested = input.requested_credential_type ?? 'api_key';
  // The reference allows only api_key for anonymous registrations: an access_token expires
  // within the hour, and an anonymous agent has no way to get another but to register again.
  if (input.type === 'anonymous' && requested !== 'api_key') {
    return failed('unsupported_credential_type', 'anonymous registrations get an api_key; ask for "api_key"');
  }
  await purgeExpired(ctx);
  const id = newId(PREFIX.registration);
  const claimToken = newSecret(PREFIX.claimToken);
  const expires = inSeconds(ctx, ctx.settings.lifetimes.registrationSeconds);
  const claim: ClaimPart = {
    registration_id: id,
    claim_url: `${ctx.baseUrl}/agent/auth/claim`,
    claim_token: claimToken,
    claim_token_expires: expires.toISOString(),
    post_claim_scopes: POST_CLAIM_SCOPES,
  };

  if (input.type === 'anonymous') {
    const apiKey = newSecret(PREFIX.apiKey);
    await ctx.db.transaction(async (tx) => {
      await tx.query(
        `insert into agent_registrations (id, kind, credential_type, claim_token_sha256, expires_at, created_at)
         values ($1, 'anonymous', 'api_key', $2, $3, $4)`,
        [id, sha256(claimToken), expires, nowOf(ctx)],
      );
      // Unclaimed, the key ends with the registration; claiming lifts the end (claim.ts).
      await tx.query(
        `insert into agent_credentials (token_sha256, registration_id, type, hint, expires_at, created_at)
         values ($1, $2, 'api_key', $3, $4, $5)`,
        [sha256(apiKey), id, hintOf(apiKey), expires, nowOf(ctx)],
      );
    });
    ctx.logger.info({ registration: id, kind: 'anonymous' }, 'agent registered');
    return done({
      ...claim,
      registration_type: 'anonymous',
      credential_type: 'api_key',
      credential: apiKey,
      api_key: apiKey,
      credential_expires: expires.toISOString(),
      scopes: PRE_CLAIM_SCOPES,
    });
  }

  const emailHmac = hmac(ctx.key, normalEmail(input.assertion));
  const allowed = await ctx.limits.mailPerAddress.consume(emailHmac);
  if (!allowed.allowed) {
    return failed('rate_limited', `too many claim emails to this address; retry in ${allowed.resetSeconds} s`);
  }
  const attempt = newClaimAttempt(ctx);
  await ctx.db.transaction(async (tx) => {
    await tx.query(
      `insert into agent_registrations (id, kind, credential_type, claim_token_sha256, email_hmac, expires_at, created_at)
       values ($1, 'verified_email', $2, $3, $4, $5, $6)`,
      [id, requested, sha256(claimToken), emailHmac, expires, nowOf(ctx)],
    );
    await attempt.insert(tx, id, emailHmac);
  });
  const sent = await deliverClaimLink(ctx, input.assertion.trim(), attempt.linkToken);
  if (!sent.ok) {
    // Nothing was handed out yet: leave no registration behind that nobody can claim.
    await ctx.db.query('delete from agent_registrations where id = $1', [id]);
    return sent;
  }
  ctx.logger.info({ registration: id, kind: 'verified_email', minutes: claimLinkMinutes(ctx) }, 'agent registered');
  return done({ ...claim, registration_type: 'email-verification', credential_type: requested });
}

async function purgeExpired(ctx: AgentContext) {
  await ctx.db.query(
    `delete from agent_registrations where id in (
       select id from agent_registrations
        where revoked_at < $1 or (claimed_at is null and expires_at < $1)
           or id in (select registration_id from agent_credentials where type = 'access_token' and expires_at < $1)
        limit 100)`,
    [new Date(ctx.settings.now() - PURGE_AFTER_MS)],
  );
}
