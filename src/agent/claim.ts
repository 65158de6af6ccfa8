/**
 * The claim ceremony's first half (docs/agents.md): POST /agent/auth/claim emails a one-time
 * link; the link's page mints the 6-digit code only when the person presses its button, so a
 * link-preview bot that fetches the page burns nothing. complete.ts checks the code.
 */
import type { Queryable } from '../storage/index.ts';
import { claimLinkUrl, claimMail } from './claim-mail.ts';
import { type AgentContext, inSeconds, nowOf } from './context.ts';
import { done, failed, type Outcome } from './errors.ts';
import { hmac, newId, newOtp, newSecret, PREFIX, sha256 } from './secrets.ts';

export interface ClaimStarted {
  registration_id: string;
  claim_attempt_id: string;
  status: 'initiated';
  /** when the emailed link stops working */
  expires_at: string;
}

interface RegistrationRow {
  id: string;
  kind: 'anonymous' | 'verified_email';
  credential_type: 'api_key' | 'access_token';
  email_hmac: string | null;
  expires_at: Date;
  claimed_at: Date | null;
  revoked_at: Date | null;
}

interface AttemptRow {
  id: string;
  email_hmac: string;
  link_expires_at: Date;
  otp_expires_at: Date | null;
  otp_failures: number;
}

/** Addresses are compared case-insensitively (in practice mailboxes are). */
export const normalEmail = (email: string) => email.trim().toLowerCase();

export const claimLinkMinutes = (ctx: AgentContext) => Math.round(ctx.settings.lifetimes.claimLinkSeconds / 60);

/** A new attempt: its link token (given out once, by email) and the insert that stores its digest. */
export function newClaimAttempt(ctx: AgentContext) {
  const id = newId(PREFIX.claimAttempt);
  const linkToken = newSecret(PREFIX.claimLink);
  const linkExpires = inSeconds(ctx, ctx.settings.lifetimes.claimLinkSeconds);
  return {
    id,
    linkToken,
    linkExpires,
    async insert(tx: Queryable, registrationId: string, emailHmac: string) {
      await tx.query(
        'update agent_claim_attempts set superseded_at = $2 where registration_id = $1 and superseded_at is null',
        [registrationId, nowOf(ctx)],
      );
      await tx.query(
        `insert into agent_claim_attempts (id, registration_id, email_hmac, link_sha256, link_expires_at, created_at)
         values ($1, $2, $3, $4, $5, $6)`,
        [id, registrationId, emailHmac, sha256(linkToken), linkExpires, nowOf(ctx)],
      );
    },
  };
}

export async function deliverClaimLink(ctx: AgentContext, to: string, linkToken: string): Promise<Outcome<void>> {
  const sent = await ctx.mailer.send(
    claimMail({ to, baseUrl: ctx.baseUrl, link: claimLinkUrl(ctx.baseUrl, linkToken), minutes: claimLinkMinutes(ctx) }),
  );
  return sent.ok ? done(undefined) : failed('mail_unavailable', 'the claim email could not be sent; try again later');
}

/** The registration a claim token names, if it can still be claimed. */
export async function claimableRegistration(
  ctx: AgentContext,
  q: Queryable,
  claimToken: string,
  lock = false,
): Promise<Outcome<RegistrationRow>> {
  const { rows } = await q.query<RegistrationRow>(
    `select id, kind, credential_type, email_hmac, expires_at, claimed_at, revoked_at from agent_registrations
      where claim_token_sha256 = $1${lock ? ' for update' : ''}`,
    [sha256(claimToken)],
  );
  const reg = rows[0];
  if (!reg || reg.revoked_at) return failed('invalid_claim_token', 'unknown or revoked claim_token');
  if (reg.claimed_at) return failed('previously_claimed', 'this registration is already claimed');
  if (new Date(reg.expires_at) <= nowOf(ctx))
    return failed('claim_expired', 'the claim_token has expired; register again');
  return done(reg);
}

/** The attempt that is still running: its link, or a code minted from it, still usable. */
async function liveAttempt(ctx: AgentContext, q: Queryable, registrationId: string): Promise<AttemptRow | undefined> {
  const { rows } = await q.query<AttemptRow>(
    `select id, email_hmac, link_expires_at, otp_expires_at, otp_failures from agent_claim_attempts
      where registration_id = $1 and superseded_at is null and completed_at is null
        and (link_expires_at > $2 or (otp_expires_at > $2 and otp_failures < $3))
      order by created_at desc limit 1`,
    [registrationId, nowOf(ctx), ctx.settings.maxOtpFailures],
  );
  return rows[0];
}

const started = (registrationId: string, a: { id: string; link_expires_at: Date }): ClaimStarted => ({
  registration_id: registrationId,
  claim_attempt_id: a.id,
  status: 'initiated',
  expires_at: new Date(a.link_expires_at).toISOString(),
});

/**
 * POST /agent/auth/claim. Idempotent: the same email while a link is running gets the same
 * answer and no second email; another email then is refused (claimed_or_in_flight) until it
 * ends. A verified-email registration can only be claimed by its own address.
 */
export async function startClaim(ctx: AgentContext, claimToken: string, email: string): Promise<Outcome<ClaimStarted>> {
  const emailHmac = hmac(ctx.key, normalEmail(email));
  const reg = await claimableRegistration(ctx, ctx.db, claimToken);
  if (!reg.ok) return reg;
  if (reg.value.email_hmac && reg.value.email_hmac !== emailHmac) {
    return failed(
      'claimed_or_in_flight',
      'this registration can only be claimed by the address it was registered with',
    );
  }
  const running = await liveAttempt(ctx, ctx.db, reg.value.id);
  if (running) {
    return running.email_hmac === emailHmac
      ? done(started(reg.value.id, running))
      : failed('claimed_or_in_flight', 'a claim to another address is in progress; retry when its link has expired');
  }
  const allowed = await ctx.limits.mailPerAddress.consume(emailHmac);
  if (!allowed.allowed) {
    return failed('rate_limited', `too many claim emails to this address; retry in ${allowed.resetSeconds} s`);
  }
  const attempt = newClaimAttempt(ctx);
  // Decide and record under the registration's row lock, so two instances answering the
  // same claim at once send one email, not two.
  const decided = await ctx.db.transaction(async (tx): Promise<Outcome<ClaimStarted | 'new'>> => {
    const again = await claimableRegistration(ctx, tx, claimToken, true);
    if (!again.ok) return again;
    const raced = await liveAttempt(ctx, tx, again.value.id);
    if (raced) {
      return raced.email_hmac === emailHmac
        ? done(started(again.value.id, raced))
        : failed('claimed_or_in_flight', 'a claim to another address is in progress');
    }
    await attempt.insert(tx, again.value.id, emailHmac);
    return done('new');
  });
  if (!decided.ok || decided.value !== 'new') return decided as Outcome<ClaimStarted>;
  const sent = await deliverClaimLink(ctx, email.trim(), attempt.linkToken);
  if (!sent.ok) {
    await ctx.db.query('update agent_claim_attempts set superseded_at = $2 where id = $1', [attempt.id, nowOf(ctx)]);
    return sent;
  }
  ctx.logger.info({ registration: reg.value.id, attempt: attempt.id }, 'claim link sent');
  return done(started(reg.value.id, { id: attempt.id, link_expires_at: attempt.linkExpires }));
}

export interface MintedOtp {
  otp: string;
  expires_at: string;
}

interface LinkRow {
  id: string;
  link_expires_at: Date;
  superseded_at: Date | null;
  completed_at: Date | null;
  expires_at: Date;
  claimed_at: Date | null;
  revoked_at: Date | null;
}

/** What the emailed link can still do; `lock` holds its attempt for the code about to be minted. */
async function usableLink(ctx: AgentContext, q: Queryable, linkToken: string, lock: boolean): Promise<Outcome<string>> {
  const { rows } = await q.query<LinkRow>(
    `select a.id, a.link_expires_at, a.superseded_at, a.completed_at, r.expires_at, r.claimed_at, r.revoked_at
       from agent_claim_attempts a join agent_registrations r on r.id = a.registration_id
      where a.link_sha256 = $1${lock ? ' for update of a' : ''}`,
    [sha256(linkToken)],
  );
  const a = rows[0];
  const now = nowOf(ctx);
  if (!a || a.revoked_at) return failed('not_found', 'this link is not valid');
  if (a.completed_at || a.claimed_at) return failed('claim_completed', 'this claim is already complete');
  if (a.superseded_at) return failed('claim_superseded', 'a newer link was sent; use the newest email');
  if (new Date(a.link_expires_at) <= now || new Date(a.expires_at) <= now) {
    return failed('claim_expired', 'this link has expired; ask your agent to start the claim again');
  }
  return done(a.id);
}

/** Opening the link only looks (a link-preview bot that fetches it burns nothing). */
export const inspectLink = (ctx: AgentContext, linkToken: string) => usableLink(ctx, ctx.db, linkToken, false);

/** The person pressed the button on the link's page: a new code, replacing any earlier one. */
export async function mintOtp(ctx: AgentContext, linkToken: string): Promise<Outcome<MintedOtp>> {
  return ctx.db.transaction(async (tx) => {
    const link = await usableLink(ctx, tx, linkToken, true);
    if (!link.ok) return link;
    const otp = newOtp();
    const expires = inSeconds(ctx, ctx.settings.lifetimes.otpSeconds);
    await tx.query(
      'update agent_claim_attempts set otp_hmac = $2, otp_expires_at = $3, otp_failures = 0 where id = $1',
      [link.value, otpDigest(ctx, link.value, otp), expires],
    );
    return done({ otp, expires_at: expires.toISOString() });
  });
}

/** The stored form of a code: bound to its attempt and keyed, since 10^6 values are quickly tried. */
export const otpDigest = (ctx: AgentContext, attemptId: string, otp: string) => hmac(ctx.key, `${attemptId}:${otp}`);
