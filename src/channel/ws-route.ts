/**
 * GET /ws: the scanning channel. Checks Origin against BASE_URL and ALLOWED_ORIGINS to
 * stop cross-site WebSocket hijacking (a page elsewhere cannot drive a person's session);
 * clients that send no Origin are not browsers and cannot be hijacked that way. Frames
 * are capped (maxPayload), idle connections close, and every connection has a lifetime.
 * Message contents are never logged: they carry passwords.
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../catalog/load.ts';
import type { Config } from '../config.ts';
import type { OutboundGuard } from '../outbound/guard.ts';
import type { ScanQuota } from '../quota/scan-quota.ts';
import { createSession } from './session.ts';

export interface ChannelSettings {
  /** close a connection with no message and no scan for this long */
  idleMs: number;
  /** close any connection after this long */
  lifetimeMs: number;
  /** stop a scan after this long */
  scanMs: number;
  /** messages per UID FETCH; subscriptions are re-sent after each batch */
  batchSize: number;
}

export const DEFAULT_CHANNEL_SETTINGS: ChannelSettings = {
  idleMs: 10 * 60_000,
  lifetimeMs: 60 * 60_000,
  scanMs: 15 * 60_000,
  batchSize: 500,
};
export const MAX_FRAME_BYTES = 64 * 1024;

export interface ChannelOptions {
  config: Config;
  catalog: Catalog;
  guard: OutboundGuard;
  quota: ScanQuota;
  settings: ChannelSettings;
}

export async function channelRoutes(app: FastifyInstance, opts: ChannelOptions) {
  const allowed = new Set([new URL(opts.config.baseUrl).origin, ...opts.config.allowedOrigins]);
  await app.register(websocket, { options: { maxPayload: MAX_FRAME_BYTES } });
  app.get(
    '/ws',
    {
      websocket: true,
      schema: { hide: true },
      preValidation: async (req, reply) => {
        const origin = req.headers.origin;
        if (origin !== undefined && !allowed.has(origin)) {
          req.log.warn({ origin }, 'websocket origin refused');
          await reply.code(403).send({ code: 'FORBIDDEN', message: 'origin not allowed' });
        }
      },
    },
    (socket, req) => {
      const log = req.log;
      const send = (msg: Record<string, unknown>) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(msg));
      };
      const session = createSession(
        {
          catalog: opts.catalog,
          guard: opts.guard,
          quota: opts.quota,
          logger: log,
          scanTimeoutMs: opts.settings.scanMs,
          batchSize: opts.settings.batchSize,
        },
        send,
      );
      let idle: NodeJS.Timeout | undefined;
      const armIdle = () => {
        clearTimeout(idle);
        idle = setTimeout(() => {
          if (session.busy) armIdle();
          else socket.close(1000, 'idle');
        }, opts.settings.idleMs);
      };
      const lifetime = setTimeout(() => socket.close(1000, 'session lifetime reached'), opts.settings.lifetimeMs);
      // Attach synchronously: messages that arrive before an await would be lost
      // (fastify/fastify-websocket#106).
      socket.on('message', (data, isBinary) => {
        armIdle();
        if (isBinary) {
          send({ type: 'error', code: 'INVALID_MESSAGE', message: 'message: send JSON text frames' });
          return;
        }
        session.handle(data.toString()).catch((err: unknown) => {
          log.error({ err }, 'channel message failed');
          send({ type: 'error', code: 'INTERNAL', message: 'Something went wrong on our side; please try again.' });
        });
      });
      socket.on('close', () => {
        clearTimeout(idle);
        clearTimeout(lifetime);
        session.close();
      });
      socket.on('error', () => {});
      armIdle();
      session.hello();
    },
  );
}
