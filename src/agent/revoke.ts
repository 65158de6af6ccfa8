/**
 * POST /agent/auth/revoke: ends a registration by any of its secrets — its api_key or
 * access_token, or its claim_token (docs/agents.md). Always "revoked", also for unknown or
 * already revoked values: RFC 7009 §2.2 answers 200 for an invalid token, which also keeps the
 * endpoint from telling a guesser which strings are live. The credential stops working on
 * every instance with the commit (every request checks the store); open event streams hear
 * of it through the revocation bus.
 */
import { type AgentContext, nowOf } from './context.ts';
import type { CredentialType } from './credentials.ts';
import { newId, PREFIX, sha256 } from './secrets.ts';

/**
 * Every kind of secret is looked up at once, so RFC 7009's `token_type_hint` (§2.1: a token
 * not found under the hinted type must be searched under all) needs no special handling.
 */
export async function revoke(ctx: AgentContext, token: string): Promise<void> {
  if (token.length > 200) return;
  const digest = sha256(token);
  const now = nowOf(ctx);
  const revoked = await ctx.db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string; revoked_at: Date | null }>(
      `select id, revoked_at from agent_registrations
        where claim_token_sha256 = $1
           or id = (select registration_id from agent_credentials where token_sha256 = $1)
        for update`,
      [digest],
    );
    const reg = rows[0];
    if (!reg || reg.revoked_at) return null;
    await tx.query(`update agent_registrations set revoked_at = $2, revoke_reason = 'revoked_by_agent' where id = $1`, [
      reg.id,
      now,
    ]);
    const cred = await tx.query<{ type: CredentialType; hint: string }>(
      'select type, hint from agent_credentials where registration_id = $1 order by created_at desc limit 1',
      [reg.id],
    );
    return { id: reg.id, credential: cred.rows[0] };
  });
  if (!revoked) return;
  ctx.logger.info({ registration: revoked.id }, 'agent registration revoked');
  await ctx.bus
    .publish({
      jti: newId(PREFIX.event),
      iat: Math.floor(now.getTime() / 1000),
      registration_id: revoked.id,
      credential_type: revoked.credential?.type ?? null,
      credential_hint: revoked.credential?.hint ?? null,
      reason: 'revoked_by_agent',
      revoked_at: now.toISOString(),
    })
    // The revocation already holds; streams that miss the notice learn it at their next check.
    .catch((err) => ctx.logger.warn({ err: String(err) }, 'revocation notice not published'));
}
