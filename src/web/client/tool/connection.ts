/**
 * The page's one WebSocket to /ws, and the session behind it. The server keeps a session
 * (the last scan's results and the sign-in, in its memory) for 10 minutes after a connection
 * drops; this module reconnects by itself after an unexpected drop and sends `resume`, so the
 * person keeps their results, selection and sign-in. After an idle close it reconnects only
 * when the page next sends something. The session id is a secret: it stays in this variable,
 * never in storage or a URL.
 */
import type { ClientMessageInput, ResumedMessage, ServerMessage } from '../../../channel/protocol.ts';

export type ChannelEvent =
  | { kind: 'session'; expiresAt: string }
  | { kind: 'reconnecting'; attempt: number }
  | { kind: 'resumed'; running: ResumedMessage['running'] }
  | { kind: 'restarting' }
  | { kind: 'expired'; afterRestart: boolean }
  | { kind: 'replaced' }
  | { kind: 'ended' }
  | { kind: 'lost' };

export interface Channel {
  /** Sends now, or once connected (and resumed, when there is a session to resume). */
  send(msg: ClientMessageInput): void;
  /** The session that will receive the next message; null before the first `ready`. */
  session(): string | null;
}

const RETRY_MS = [250, 1000, 2000, 4000, 8000];
/** the server keeps a dropped session this long */
const KEEP_MS = 10 * 60_000;

export function openChannel(onMessage: (m: ServerMessage) => void, onEvent: (e: ChannelEvent) => void): Channel {
  let ws: WebSocket | null = null;
  let session: string | null = null;
  /** the session this connection must take over before anything else is sent */
  let resuming: string | null = null;
  /** this connection's own session, used when the one to resume is gone */
  let fresh: { session: string; expires_at: string } | null = null;
  let ready = false;
  let queue: ClientMessageInput[] = [];
  let attempt = 0;
  let droppedAt = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;
  /** the server said it is restarting (SERVICE_RESTARTING, then close 1012) */
  let restarted = false;

  function connect(): void {
    clearTimeout(retry);
    ready = false;
    const socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
    ws = socket;
    socket.addEventListener('message', (ev) => {
      let m: ServerMessage;
      try {
        m = JSON.parse(String(ev.data)) as ServerMessage;
      } catch {
        return; // the server only sends JSON
      }
      if (handleOwn(socket, m)) return;
      onMessage(m);
    });
    socket.addEventListener('close', (ev) => {
      if (ws !== socket) return;
      ws = null;
      ready = false;
      closed(ev.code, ev.reason);
    });
  }

  /** The messages about the connection itself; true when the page need not see it. */
  function handleOwn(socket: WebSocket, m: ServerMessage): boolean {
    if (m.type === 'ready') {
      attempt = 0;
      if (session && session !== m.session) {
        resuming = session;
        fresh = m;
        socket.send(JSON.stringify({ type: 'resume', session } satisfies ClientMessageInput));
        return true;
      }
      session = m.session;
      onEvent({ kind: 'session', expiresAt: m.expires_at });
      flush(socket);
      return false;
    }
    if (m.type === 'resumed' && resuming) {
      restarted = false;
      session = m.session;
      resuming = null;
      onEvent({ kind: 'session', expiresAt: m.expires_at });
      onEvent({ kind: 'resumed', running: m.running });
      flush(socket);
      return true;
    }
    if (m.type === 'error' && m.code === 'SESSION_EXPIRED' && resuming && fresh) {
      session = fresh.session;
      resuming = null;
      queue = queue.filter((q) => q.type !== 'unsubscribe' && q.type !== 'cancel'); // they needed the old sign-in
      onEvent({ kind: 'expired', afterRestart: restarted });
      restarted = false;
      onEvent({ kind: 'session', expiresAt: fresh.expires_at });
      flush(socket);
      return true;
    }
    if (m.type === 'error' && m.code === 'SERVICE_RESTARTING') {
      // the close (1012) follows; the reconnection resumes, most likely on another instance
      restarted = true;
      queue = queue.filter((q) => q.type !== 'unsubscribe' && q.type !== 'cancel');
      onEvent({ kind: 'restarting' });
      return true;
    }
    if (m.type === 'error' && m.code === 'SESSION_ENDED') {
      session = null;
      onEvent({ kind: 'ended' });
      return true;
    }
    return false;
  }

  function flush(socket: WebSocket): void {
    ready = true;
    for (const m of queue) socket.send(JSON.stringify(m));
    queue = [];
  }

  function closed(code: number, reason: string): void {
    if (code === 4001) {
      session = null; // another window took the session over
      queue = [];
      onEvent({ kind: 'replaced' });
    } else if (code === 1000 || code === 1009 || !session) {
      // idle, the session's end, or nothing to resume: reconnect when the page next sends
      if (reason !== 'idle') session = null;
    } else {
      if (attempt === 0) droppedAt = Date.now();
      if (Date.now() - droppedAt > KEEP_MS) {
        session = null;
        onEvent({ kind: 'lost' });
        return;
      }
      // after SERVICE_RESTARTING the page has already said why; retries are the same step
      if (!restarted) onEvent({ kind: 'reconnecting', attempt: attempt + 1 });
      retry = setTimeout(connect, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]);
      attempt++;
    }
  }

  return {
    send(msg) {
      if (ws && ready && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
      else {
        queue.push(msg);
        if (!ws) connect();
      }
    },
    session: () => resuming ?? session,
  };
}
