/**
 * A real WebSocket client for channel tests: connects to a listening app, records every
 * message, and waits for the next message of a given type. Every frame the server sends is
 * held to the protocol's schema (src/channel/protocol.ts): one that does not fit fails the
 * test at its next wait.
 */
import WebSocket from 'ws';
import { describeIssues, ServerMessage } from '../../src/channel/protocol.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests read the server's JSON messages loosely
export type Msg = Record<string, any>;

export interface WsClient {
  ws: WebSocket;
  messages: Msg[];
  send(msg: unknown): void;
  sendRaw(data: string | Buffer): void;
  next(type: string, timeoutMs?: number): Promise<Msg>;
  all(type: string): Msg[];
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

/** `headers`: extra upgrade-request headers, e.g. the Microsoft sign-in's `cookie`. */
export async function connectWs(url: string, origin?: string, headers?: Record<string, string>): Promise<WsClient> {
  const ws = new WebSocket(url, { ...(origin ? { origin } : {}), ...(headers ? { headers } : {}) });
  const messages: Msg[] = [];
  // one cursor per type: next('x') returns the first 'x' not yet returned
  const cursors = new Map<string, number>();
  const waiters: (() => void)[] = [];
  let violation: Error | null = null;
  ws.on('message', (data) => {
    const json = JSON.parse(String(data));
    const checked = ServerMessage.safeParse(json);
    if (!checked.success)
      violation ??= new Error(
        `a server message outside the protocol: ${describeIssues(checked.error)} in ${String(data)}`,
      );
    messages.push(json);
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((r) =>
    ws.on('close', (code, reason) => {
      r({ code, reason: String(reason) });
      for (const w of waiters.splice(0)) w();
    }),
  );
  await new Promise<void>((res, rej) => {
    ws.once('open', () => res());
    ws.once('error', rej);
    ws.once('unexpected-response', (_req, r) => rej(new Error(`HTTP ${r.statusCode}`)));
  });
  const client: WsClient = {
    ws,
    messages,
    send: (msg) => ws.send(JSON.stringify(msg)),
    sendRaw: (data) => ws.send(data),
    all: (type) => messages.filter((m) => m.type === type),
    async next(type, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        if (violation) throw violation;
        const i = messages.findIndex((m, idx) => idx >= (cursors.get(type) ?? 0) && m.type === type);
        if (i >= 0) {
          cursors.set(type, i + 1);
          return messages[i]!;
        }
        if (ws.readyState === WebSocket.CLOSED) throw new Error(`closed before a "${type}" message`);
        const left = until - Date.now();
        if (left <= 0)
          throw new Error(`no "${type}" message within ${timeoutMs} ms; got ${messages.map((m) => m.type).join(',')}`);
        await new Promise<void>((r) => {
          const t = setTimeout(r, Math.min(left, 200));
          waiters.push(() => {
            clearTimeout(t);
            r();
          });
        });
      }
    },
    closed,
    async close() {
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close();
      await closed;
    },
  };
  return client;
}
