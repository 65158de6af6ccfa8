/**
 * POST /agent/auth/claim/complete {claim_token, otp}: the code the person read from the claim
 * page. Right → the registration is claimed: an anonymous key keeps working with the
 * post-claim scopes and no longer ends; a verified-email registration gets its first credential
 * here. Wrong → counted, and after maxOtpFailures wrong codes that code is dead (RFC 8628 §5.1:
 * a short code is bounded by the attempts allowed, not by its entropy). Everything happens
 * under the registration's row lock, so tries on several instances count as one sequence.
 */
import { claimableRegistration, otpDigest } from './claim.ts';
import { type AgentContext, inSeconds, nowOf } from './context.ts';
import type { CredentialType } from './credentials.ts';
import { done, failed, type Outcome } from './errors.ts';
import { POST_CLAIM_SCOPES, type Scope } from './scopes.ts';
import { hintOf, newSecret, PREFIX, sameDigest, sha256 } from './secrets.ts';

export type Completed =
  | { registration_id: string; status: 'claimed' }
  | {
      registration_id: string;
      status: 'claimed';
      credential_type: CredentialType;
      credential: string;
      api_key?: string;
      access_token?: string;
      credential_expires: string | null;
      scopes: readonly Scope[];
    };

export async function completeClaim(ctx: AgentContext, claimToken: string, otp: string): Promise<Outcome<Completed>> {
  return ctx.db.transaction(async (tx): Promise<Outcome<Completed>> => {
    const reg = await claimableRegistration(ctx, tx, claimToken, true);
    if (!reg.ok) return reg;
    const { rows } = await tx.query<{
      id: string;
      otp_hmac: string | null;
      otp_expires_at: Date | null;
      otp_failures: number;
    }>(
      `select id, otp_hmac, otp_expires_at, otp_failures from agent_claim_attempts
        where registration_id = $1 and superseded_at is null and completed_at is null
        order by created_at desc limit 1`,
      [reg.value.id],
    );
    const attempt = rows[0];
    const now = nowOf(ctx);
    if (!attempt?.otp_hmac || !attempt.otp_expires_at) {
      return failed('otp_not_generated', 'no code yet: the person must open the emailed link and press its button');
    }
    const max = ctx.settings.maxOtpFailures;
    if (attempt.otp_failures >= max) {
      return failed('otp_expired', 'this code is dead after too many wrong tries; the person can make a new one');
    }
    if (new Date(attempt.otp_expires_at) <= now) {
      return failed('otp_expired', 'this code has expired; the person can make a new one on the claim page');
    }
    if (!sameDigest(otpDigest(ctx, attempt.id, otp), attempt.otp_hmac)) {
      await tx.query('update agent_claim_attempts set otp_failures = otp_failures + 1 where id = $1', [attempt.id]);
      const left = max - attempt.otp_failures - 1;
      return failed(
        'otp_invalid',
        left > 0 ? `wrong code; ${left} more tries for this code` : 'wrong code; this code is now dead',
      );
    }

    await tx.query('update agent_registrations set claimed_at = $2 where id = $1', [reg.value.id, now]);
    await tx.query('update agent_claim_attempts set completed_at = $2 where id = $1', [attempt.id, now]);
    ctx.logger.info({ registration: reg.value.id }, 'agent registration claimed');
    if (reg.value.kind === 'anonymous') {
      // Upgraded in place (docs/agents.md): same key, post-claim scopes, and no end any more.
      await tx.query('update agent_credentials set expires_at = null where registration_id = $1', [reg.value.id]);
      return done({ registration_id: reg.value.id, status: 'claimed' });
    }
    const type = reg.value.credential_type;
    const secret = newSecret(type === 'api_key' ? PREFIX.apiKey : PREFIX.accessToken);
    const expires = type === 'access_token' ? inSeconds(ctx, ctx.settings.lifetimes.accessTokenSeconds) : null;
    await tx.query(
      `insert into agent_credentials (token_sha256, registration_id, type, hint, expires_at, created_at)
       values ($1, $2, $3, $4, $5, $6)`,
      [sha256(secret), reg.value.id, type, hintOf(secret), expires, now],
    );
    return done({
      registration_id: reg.value.id,
      status: 'claimed',
      credential_type: type,
      credential: secret,
      ...(type === 'api_key' ? { api_key: secret } : { access_token: secret }),
      credential_expires: expires?.toISOString() ?? null,
      scopes: POST_CLAIM_SCOPES,
    });
  });
}
