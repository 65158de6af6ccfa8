/**
 * The page's one WebSocket to /ws, opened lazily and again after it closes (the server
 * closes idle connections after 10 minutes). Each connection has a generation number:
 * the credentials of a scan live only on the connection that ran it, so unsubscribing
 * is possible only while that same generation is open.
 */
import type { ClientMessageInput, ServerMessage } from '../../../channel/protocol.ts';

export interface Channel {
  send(msg: ClientMessageInput): void;
  /** the generation of the open (or opening) connection; 0 before the first */
  generation(): number;
  isOpen(): boolean;
}

export function openChannel(
  onMessage: (m: ServerMessage) => void,
  onClose: (generation: number, code: number) => void,
): Channel {
  let ws: WebSocket | null = null;
  let gen = 0;
  let pending: string[] = [];

  function ensure(): WebSocket {
    if (ws && (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.OPEN)) return ws;
    gen += 1;
    const mine = gen;
    const socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
    socket.addEventListener('open', () => {
      for (const m of pending) socket.send(m);
      pending = [];
    });
    socket.addEventListener('message', (ev) => {
      try {
        onMessage(JSON.parse(String(ev.data)) as ServerMessage);
      } catch {
        // a frame we cannot read is ignored; the server only sends JSON
      }
    });
    socket.addEventListener('close', (ev) => {
      if (ws === socket) ws = null;
      pending = [];
      onClose(mine, ev.code);
    });
    ws = socket;
    return socket;
  }

  return {
    send(msg) {
      const socket = ensure();
      const text = JSON.stringify(msg);
      if (socket.readyState === WebSocket.OPEN) socket.send(text);
      else pending.push(text);
    },
    generation: () => gen,
    isOpen: () => ws !== null && ws.readyState === WebSocket.OPEN,
  };
}
