/**
 * The Bearer middleware every protected surface shares (the revocation event stream today,
 * the MCP endpoint next). The credential travels only in `Authorization: Bearer` (RFC 6750
 * §2.1; never in the query string, §2.3 and the MCP authorization spec). It is checked against
 * the live store on every request, so a revocation counts at once on every instance.
 *
 *   const auth = createBearerAuth(ctx);            // or { resourceMetadataUrl } of a sub-resource
 *   app.get('/thing', { preHandler: auth.requireScope('inbox.read') }, (req) => auth.principal(req));
 *
 * Refusals follow RFC 6750 §3 with RFC 9728 §5.1's `resource_metadata`: 401 and
 * `WWW-Authenticate: Bearer …` (no `error` when no credential was sent, §3.1), 403
 * `insufficient_scope` naming the scopes the route needs. Bodies are the agent protocol's
 * `{error, message}` (errors.ts).
 */
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { AgentContext } from './context.ts';
import { type AgentPrincipal, credentialState } from './credentials.ts';
import type { AgentErrorCode } from './errors.ts';
import type { Scope } from './scopes.ts';

export type { AgentPrincipal } from './credentials.ts';
export type { Scope } from './scopes.ts';
export { POST_CLAIM_SCOPES, PRE_CLAIM_SCOPES, SCOPES } from './scopes.ts';

export type Verdict =
  | { ok: true; principal: AgentPrincipal; token: string }
  | { ok: false; status: 401 | 403; error: AgentErrorCode; message: string; challenge: string };

export interface BearerAuth {
  /** The URL named in every challenge (RFC 9728 §5.1). */
  readonly resourceMetadataUrl: string;
  /** preHandler: 401 without a live credential, 403 unless it carries every scope named. */
  requireScope(...scopes: Scope[]): preHandlerAsyncHookHandler;
  /** The principal requireScope admitted for this request (a bug to ask elsewhere). */
  principal(req: FastifyRequest): AgentPrincipal;
  /** The same decision for adapters that are not Fastify routes (e.g. an SDK's auth hook). */
  check(authorization: string | string[] | undefined, scopes: readonly Scope[]): Promise<Verdict>;
}

// RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token; the scheme is case-insensitive (RFC 9110 §11.1).
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

const quote = (s: string) => `"${s.replace(/["\\]/g, '\\$&')}"`;

export function createBearerAuth(ctx: AgentContext, opts: { resourceMetadataUrl?: string } = {}): BearerAuth {
  const resourceMetadataUrl = opts.resourceMetadataUrl ?? `${ctx.baseUrl}/.well-known/oauth-protected-resource`;
  const admitted = new WeakMap<FastifyRequest, AgentPrincipal>();
  const challenge = (params: Record<string, string>) =>
    `Bearer ${Object.entries({ ...params, resource_metadata: resourceMetadataUrl })
      .map(([k, v]) => `${k}=${quote(v)}`)
      .join(', ')}`;
  const unauthorized = (message: string, withError: boolean): Verdict => ({
    ok: false,
    status: 401,
    error: 'invalid_token',
    message,
    challenge: challenge(withError ? { error: 'invalid_token', error_description: message } : {}),
  });

  async function check(authorization: string | string[] | undefined, scopes: readonly Scope[]): Promise<Verdict> {
    if (authorization === undefined || authorization === '') {
      return unauthorized('send Authorization: Bearer <api_key or access_token>; see auth.md', false);
    }
    const m = typeof authorization === 'string' ? BEARER.exec(authorization) : null;
    if (!m) return unauthorized('the Authorization header must be "Bearer <credential>"', true);
    const token = m[1]!;
    const state = await credentialState(ctx, token);
    if (state.status !== 'valid') {
      return unauthorized('invalid, expired or revoked credential: drop it and register again', true);
    }
    const missing = scopes.filter((s) => !state.principal.scopes.includes(s));
    if (missing.length) {
      const why = state.principal.claimed
        ? `this credential lacks ${missing.join(' ')}`
        : `needs ${missing.join(' ')}, granted when a person claims the registration: see ${ctx.baseUrl}/auth.md#claim`;
      return {
        ok: false,
        status: 403,
        error: 'insufficient_scope',
        message: why,
        challenge: challenge({ error: 'insufficient_scope', scope: scopes.join(' '), error_description: why }),
      };
    }
    return { ok: true, principal: state.principal, token };
  }

  return {
    resourceMetadataUrl,
    check,
    requireScope(...scopes) {
      return async (req: FastifyRequest, reply: FastifyReply) => {
        const v = await check(req.headers.authorization, scopes);
        if (v.ok) {
          admitted.set(req, v.principal);
          return;
        }
        return reply
          .code(v.status)
          .header('www-authenticate', v.challenge)
          .header('cache-control', 'no-store')
          .type('application/json; charset=utf-8')
          .send({ error: v.error, message: v.message });
      };
    },
    principal(req) {
      const p = admitted.get(req);
      if (!p) throw new Error('principal() asked on a route without requireScope');
      return p;
    },
  };
}
