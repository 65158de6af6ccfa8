/**
 * GET /ws: the scanning channel. Checks Origin against BASE_URL and ALLOWED_ORIGINS to
 * stop cross-site WebSocket hijacking (a page elsewhere cannot drive a person's session);
 * clients that send no Origin are not browsers and cannot be hijacked that way. Frames
 * are capped (maxPayload); each connection is driven by ws-connection.ts. The Origin check
 * matters doubly for the Microsoft sign-in, whose cookie any request to this host carries.
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { ConnectionLeases, Lease } from '../limits/connection-leases.ts';
import type { OAuthService } from '../oauth/service.ts';
import { readCookie } from '../oauth/sessions.ts';
import type { LiveConnections } from './drain.ts';
import { type ServerMessage, WS_CLOSE } from './protocol.ts';
import type { SessionStore } from './session-store.ts';
import { driveConnection } from './ws-connection.ts';

export interface ChannelSettings {
  /** close a connection with no client message and nothing running for this long */
  idleMs: number;
  /** ping every connection this often (proxies drop silent ones); no answer to two: the peer is gone */
  pingMs: number;
  /** a session's hard limit, from its start */
  lifetimeMs: number;
  /** how long a session outlives the connection that drove it */
  keepMs: number;
  /** stop a scan after this long */
  scanMs: number;
  /** messages per UID FETCH; subscriptions are re-sent after each batch */
  batchSize: number;
}

export const DEFAULT_CHANNEL_SETTINGS: ChannelSettings = {
  idleMs: 10 * 60_000,
  pingMs: 30_000,
  lifetimeMs: 60 * 60_000,
  keepMs: 10 * 60_000,
  scanMs: 15 * 60_000,
  batchSize: 500,
};
export const MAX_FRAME_BYTES = 64 * 1024;

export interface ChannelOptions {
  config: Config;
  sessions: SessionStore;
  dailyLimit: number;
  settings: ChannelSettings;
  /** the Microsoft sign-ins: a connection whose upgrade request carries one scans `outlook` with it */
  oauth: Pick<OAuthService, 'sessions' | 'cookies'>;
  /** concurrent connections per client IP (src/limits/connection-leases.ts) */
  connections: ConnectionLeases;
  /** open connections, and whether the instance is shutting down (drain.ts) */
  live: LiveConnections;
}

export async function channelRoutes(app: FastifyInstance, opts: ChannelOptions) {
  const allowed = new Set([new URL(opts.config.baseUrl).origin, ...opts.config.allowedOrigins]);
  await app.register(websocket, {
    options: { maxPayload: MAX_FRAME_BYTES },
    errorHandler(err, socket, req) {
      // A peer that breaks the protocol (text that is not UTF-8, a frame over maxPayload…) is
      // hostile input, not our failure: the ws library has already sent the close code RFC 6455
      // §7.4.1 gives it (1007, 1009, 1002), so it is noted, not logged as an error with a stack.
      const code = (err as { code?: unknown }).code;
      if (typeof code === 'string' && code.startsWith('WS_ERR_')) {
        req.log.info({ code }, 'websocket peer broke the protocol');
        return;
      }
      req.log.error({ err }, 'websocket failed');
      socket.terminate();
    },
  });
  app.get(
    '/ws',
    {
      websocket: true,
      schema: { hide: true },
      preValidation: async (req, reply) => {
        // Shutting down: a balancer that retries on 503 (docs/deploy.md) opens it on another instance.
        if (opts.live.draining) {
          await reply
            .code(503)
            .header('retry-after', '1')
            .send({ code: 'UNAVAILABLE', message: 'this instance is shutting down; connect again' });
          return;
        }
        const origin = req.headers.origin;
        if (origin !== undefined && !allowed.has(origin)) {
          req.log.warn({ origin }, 'websocket origin refused');
          await reply.code(403).send({ code: 'FORBIDDEN', message: 'origin not allowed' });
          return;
        }
        // The lease is taken before the upgrade (this hook may wait; the handler below may not)
        // and freed when the socket closes, whether or not the upgrade went through.
        if (req.headers.upgrade?.toLowerCase() !== 'websocket') return; // no connection to count
        const lease = await opts.connections.acquire(req.ip);
        leases.set(req, lease);
        if ('release' in lease) req.raw.socket.once('close', () => lease.release());
      },
    },
    (socket, req) => {
      const lease = leases.get(req);
      leases.delete(req);
      if (lease && 'refused' in lease) {
        // Accepted only to say why in words a page can show, then closed (docs/websocket.md).
        socket.send(
          JSON.stringify({
            type: 'error',
            code: 'TOO_MANY_CONNECTIONS',
            message: `Your network already has ${opts.connections.max} connections open to this service; close some tabs, or try again in ${lease.retryAfter} seconds.`,
            retry_after: lease.retryAfter,
          } satisfies ServerMessage),
        );
        socket.close(WS_CLOSE.tooMany.code, WS_CLOSE.tooMany.reason);
        return;
      }
      socket.once('close', () => lease?.release());
      // Looked up at each scan, not now: the person may sign out, or the sign-in end, meanwhile.
      const signIn = readCookie(req.headers.cookie, opts.oauth.cookies.session);
      driveConnection(socket, {
        store: opts.sessions,
        dailyLimit: opts.dailyLimit,
        settings: opts.settings,
        log: req.log,
        account: () => opts.oauth.sessions.get(signIn),
        ip: req.ip,
        live: opts.live,
      });
    },
  );
}

const leases = new WeakMap<object, Lease | { refused: true; retryAfter: number }>();
