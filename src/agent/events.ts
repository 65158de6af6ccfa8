/**
 * GET /agent/auth/events (Bearer): a server-sent event stream on which an agent hears that its
 * credential was revoked or has ended (docs/agents.md). Each event's data is a Security Event
 * Token claim set (RFC 8417 §2.2: iss, iat, jti, events; the subject as an RFC 9493 "opaque"
 * sub_id, the registration id) sent as JSON over the authenticated TLS stream; the event type is
 * OAuth Event Types 1.0's token-revoked. After the event the stream ends: reconnecting with the
 * same credential gets 401, which stays the authoritative answer with or without a stream.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BearerAuth } from './bearer.ts';
import type { AgentContext } from './context.ts';
import { credentialState } from './credentials.ts';
import type { RevocationNotice } from './revocation-bus.ts';
import { newId, PREFIX } from './secrets.ts';

export const TOKEN_REVOKED = 'https://schemas.openid.net/secevent/oauth/event-type/token-revoked';
export const EVENT_NAME = 'credential.revoked';

export function revocationSet(issuer: string, n: RevocationNotice) {
  return {
    iss: issuer,
    jti: n.jti,
    iat: n.iat,
    sub_id: { format: 'opaque', id: n.registration_id },
    events: {
      [TOKEN_REVOKED]: {
        credential_type: n.credential_type,
        credential_hint: n.credential_hint,
        reason: n.reason,
        revoked_at: n.revoked_at,
      },
    },
  };
}

/** Open streams, so shutdown can end them instead of waiting for agents to hang up. */
export function createEventStreams(ctx: AgentContext, auth: BearerAuth) {
  const open = new Set<() => void>();

  async function handle(req: FastifyRequest, reply: FastifyReply) {
    const principal = auth.principal(req);
    const token = /^\S+\s+(\S+)$/.exec(req.headers.authorization ?? '')![1]!;
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no', // a buffering proxy would hold events back
    });
    // WHATWG SSE: `retry` sets the reconnection delay; a comment line keeps proxies from idling out.
    res.write(': optout revocation events\nretry: 5000\n\n');

    let ended = false;
    let off: (() => void) | undefined;
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(timer);
      offResync();
      off?.();
      open.delete(end);
      res.end();
    };
    const send = (n: RevocationNotice) => {
      if (ended) return;
      res.write(`id: ${n.jti}\nevent: ${EVENT_NAME}\ndata: ${JSON.stringify(revocationSet(ctx.baseUrl, n))}\n\n`);
      end();
    };
    /** The store's word, for notices that may have been missed. */
    const recheck = async () => {
      const s = await credentialState(ctx, token).catch(() => null);
      if (!s || s.status === 'valid' || s.status === 'unknown') return;
      const { rows } = await ctx.db
        .query<{ revoke_reason: string | null }>('select revoke_reason from agent_registrations where id = $1', [
          principal.registrationId,
        ])
        .catch(() => ({ rows: [] as { revoke_reason: string | null }[] }));
      send({
        jti: newId(PREFIX.event),
        iat: Math.floor(ctx.settings.now() / 1000),
        registration_id: principal.registrationId,
        credential_type: principal.credentialType,
        credential_hint: principal.hint,
        reason:
          s.status === 'expired' ? 'expired' : ((rows[0]?.revoke_reason as 'revoked_by_agent') ?? 'revoked_by_agent'),
        revoked_at: s.revokedAt.toISOString(),
      });
    };
    const timer = setInterval(() => {
      if (!ended) res.write(': keep-alive\n\n');
      void recheck();
    }, ctx.settings.heartbeatMs);
    timer.unref();
    const offResync = ctx.bus.onResync(() => void recheck());
    open.add(end);
    res.on('close', end);
    const unsubscribe = await ctx.bus.subscribe(principal.registrationId, send);
    if (ended) return unsubscribe();
    off = unsubscribe;
    // A revocation between the credential check and the subscription would otherwise go unheard.
    await recheck();
  }

  return {
    handle,
    closeAll() {
      for (const end of [...open]) end();
    },
  };
}
