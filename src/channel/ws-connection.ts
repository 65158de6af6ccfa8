/**
 * One /ws connection: it opens a session and drives it, or resumes one whose connection
 * dropped. It turns frames into session commands, closes when idle (no client message and
 * nothing running) and pings so proxies keep it open and a dead peer is noticed. Message
 * contents are never logged: they carry passwords and the session secret.
 */
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { WebSocket } from 'ws';
import { OAUTH_PROVIDER } from '../mailbox/providers.ts';
import type { OAuthAccount } from '../oauth/account.ts';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../storage/unavailable.ts';
import type { LiveConnections } from './drain.ts';
import { ClientMessage, describeIssues, PROTOCOL_VERSION, type ServerMessage, WS_CLOSE } from './protocol.ts';
import type { ScanSession, SessionOwner } from './session.ts';
import type { SessionStore } from './session-store.ts';

export interface ConnectionSettings {
  /** close a connection with no client message and nothing running for this long */
  idleMs: number;
  /** ping this often; a peer that answered neither of the last two pings is dropped */
  pingMs: number;
}

export function driveConnection(
  socket: WebSocket,
  ctx: {
    store: SessionStore;
    dailyLimit: number;
    settings: ConnectionSettings;
    log: Logger;
    /** the Microsoft sign-in of the upgrade request's cookie, if it is still live */
    account: () => OAuthAccount | null;
    /** the client's IP (Fastify's request.ip): the attempt limits count per client */
    ip: string;
    /** every open connection, for a graceful shutdown (drain.ts) */
    live: LiveConnections;
  },
): void {
  const { store, settings, log } = ctx;
  const client = { ip: ctx.ip };
  const send = (msg: ServerMessage) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(msg));
  };
  const owner: SessionOwner = {
    send,
    ended() {
      send({ type: 'error', code: 'SESSION_ENDED', message: 'This session reached its time limit; scan again.' });
      socket.close(WS_CLOSE.ended.code, WS_CLOSE.ended.reason);
    },
    replaced: () => socket.close(WS_CLOSE.replaced.code, WS_CLOSE.replaced.reason),
  };
  let session: ScanSession = store.open();
  session.attach(owner);
  const live = ctx.live.add({
    session: () => session,
    restart() {
      send({
        type: 'error',
        code: 'SERVICE_RESTARTING',
        message: 'The server is restarting. Reconnect to continue; a scan may need to be run again.',
      });
      socket.close(WS_CLOSE.restart.code, WS_CLOSE.restart.reason);
    },
  });

  let idle: NodeJS.Timeout | undefined;
  let closed = false;
  const armIdle = () => {
    clearTimeout(idle);
    if (closed) return; // a command that ends after the close must not start a timer
    idle = setTimeout(() => {
      if (session.running) armIdle();
      else socket.close(WS_CLOSE.idle.code, WS_CLOSE.idle.reason);
    }, settings.idleMs);
  };
  // A peer that answered neither of the last two pings is gone (one late pong is only a busy moment).
  let unanswered = 0;
  const pinger = setInterval(() => {
    if (unanswered >= 2) {
      socket.terminate();
      return;
    }
    unanswered++;
    socket.ping();
  }, settings.pingMs);
  socket.on('pong', () => {
    unanswered = 0;
  });

  function resume(id: string) {
    if (id !== session.id) {
      if (session.running) {
        send({ type: 'error', code: 'BUSY', message: 'Something is running in this connection’s own session.' });
        return;
      }
      const target = store.find(id);
      if (!target) {
        send({
          type: 'error',
          code: 'SESSION_EXPIRED',
          message: 'That session has ended; its sign-in was wiped. Scan again.',
        });
        return;
      }
      session.detach(owner);
      store.release(session); // this connection's own session, now unused
      session = target;
      store.claim(session);
    }
    // Synchronously: nothing the session reports can fall between `resumed` and the replay.
    session.attach(owner);
    send({
      type: 'resumed',
      session: session.id,
      expires_at: session.expiresAt.toISOString(),
      running: session.running,
    });
    for (const m of session.replay()) send(m);
  }

  async function handle(raw: string) {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      send({ type: 'error', code: 'INVALID_MESSAGE', message: 'message: not valid JSON' });
      return;
    }
    const parsed = ClientMessage.safeParse(json);
    if (!parsed.success) {
      send({ type: 'error', code: 'INVALID_MESSAGE', message: describeIssues(parsed.error) });
      return;
    }
    const m = parsed.data;
    // Shutting down: no new work starts here (what runs is left to finish, drain.ts).
    if (
      ctx.live.draining &&
      (m.type === 'scan' || m.type === 'unsubscribe' || m.type === 'audit') &&
      !session.running
    ) {
      live.restart();
      return;
    }
    if (m.type === 'quota') await session.quota(m.email);
    else if (m.type === 'scan') await session.scan(m, m.provider === OAUTH_PROVIDER.id ? ctx.account() : null, client);
    else if (m.type === 'unsubscribe') await session.unsubscribe(m, client);
    else if (m.type === 'cancel') session.cancel();
    else if (m.type === 'audit') await session.audit();
    else resume(m.session);
  }

  // Attach synchronously: messages that arrive before an await would be lost
  // (fastify/fastify-websocket#106).
  socket.on('message', (data, isBinary) => {
    armIdle();
    if (isBinary) {
      send({ type: 'error', code: 'INVALID_MESSAGE', message: 'message: send JSON text frames' });
      return;
    }
    handle(data.toString())
      .catch((err: unknown) => {
        if (isDatabaseUnavailable(err)) {
          // an expected outcome with a clear answer; the pool reconnects once the database is back
          log.warn({ err: String(err) }, 'channel: database unavailable');
          send({
            type: 'error',
            code: 'SERVICE_UNAVAILABLE',
            message: 'The service cannot reach its database right now; nothing was done. Try again in a few seconds.',
            retry_after: DATABASE_RETRY_AFTER_SECONDS,
          });
          return;
        }
        log.error({ err }, 'channel message failed');
        send({ type: 'error', code: 'INTERNAL', message: 'Something went wrong on our side; please try again.' });
      })
      .finally(armIdle); // a scan or batch that just ended starts the idle time afresh
  });
  socket.on('close', () => {
    closed = true;
    live.remove();
    clearTimeout(idle);
    clearInterval(pinger);
    if (session.detach(owner)) store.release(session);
  });
  socket.on('error', () => {});
  armIdle();
  send({
    type: 'ready',
    protocol: PROTOCOL_VERSION,
    daily_limit: ctx.dailyLimit,
    session: session.id,
    expires_at: session.expiresAt.toISOString(),
  });
}
