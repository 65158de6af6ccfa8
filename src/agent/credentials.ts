/**
 * What a presented credential is worth right now: looked up by its SHA-256 in the live
 * store on every request (no cache), so a revocation on any instance counts at once.
 */
import type { Queryable } from '../storage/index.ts';
import { type AgentContext, nowOf } from './context.ts';
import { type Scope, scopesFor } from './scopes.ts';
import { PREFIX, sha256 } from './secrets.ts';

export type CredentialType = 'api_key' | 'access_token';

export interface AgentPrincipal {
  registrationId: string;
  credentialType: CredentialType;
  /** the credential's first characters, safe to log and to show */
  hint: string;
  scopes: readonly Scope[];
  claimed: boolean;
  /** null: no expiry */
  expiresAt: Date | null;
}

export type CredentialState =
  | { status: 'valid'; principal: AgentPrincipal }
  | { status: 'revoked' | 'expired'; principal: AgentPrincipal; revokedAt: Date }
  | { status: 'unknown' };

interface Row {
  registration_id: string;
  type: CredentialType;
  hint: string;
  expires_at: Date | null;
  claimed_at: Date | null;
  revoked_at: Date | null;
}

/** Only our two credential prefixes are ever looked up; anything else is unknown without a query. */
const isCredentialShaped = (token: string) =>
  (token.startsWith(PREFIX.apiKey) || token.startsWith(PREFIX.accessToken)) && token.length <= 100;

export async function credentialState(
  ctx: AgentContext,
  token: string,
  q: Queryable = ctx.db,
): Promise<CredentialState> {
  if (!isCredentialShaped(token)) return { status: 'unknown' };
  const { rows } = await q.query<Row>(
    `select c.registration_id, c.type, c.hint, c.expires_at, r.claimed_at, r.revoked_at
       from agent_credentials c join agent_registrations r on r.id = c.registration_id
      where c.token_sha256 = $1`,
    [sha256(token)],
  );
  const row = rows[0];
  if (!row) return { status: 'unknown' };
  const claimed = row.claimed_at !== null;
  const principal: AgentPrincipal = {
    registrationId: row.registration_id,
    credentialType: row.type,
    hint: row.hint,
    scopes: scopesFor(claimed),
    claimed,
    expiresAt: row.expires_at ? new Date(row.expires_at) : null,
  };
  if (row.revoked_at) return { status: 'revoked', principal, revokedAt: new Date(row.revoked_at) };
  if (principal.expiresAt && principal.expiresAt <= nowOf(ctx)) {
    return { status: 'expired', principal, revokedAt: principal.expiresAt };
  }
  return { status: 'valid', principal };
}
