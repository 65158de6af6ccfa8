/**
 * A TCP relay on loopback between a client and a real server (Dovecot, an SMTP sink): it counts
 * the connections made through it, can refuse new ones, and can cut the open ones as a network
 * would (no FIN from the server, just a reset), so tests see exactly what the client did and
 * what happens when the peer vanishes mid-conversation. Bytes pass through untouched (TLS too).
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpRelay {
  port: number;
  /** connections accepted so far */
  readonly connections: number;
  /** connections open now */
  readonly open: number;
  /** bytes passed from clients to the server so far */
  readonly bytesUp: number;
  /** bytes passed from the server to clients so far */
  readonly bytesDown: number;
  /** cut every open connection (both sides destroyed) */
  cutAll(): void;
  /** while true, nothing the server sends reaches the clients (a stalled network); false delivers it */
  hold(on: boolean): void;
  /** while true, new connections are closed at once (a server that went away) */
  refuse(on: boolean): void;
  close(): Promise<void>;
}

export async function startTcpRelay(target: { host: string; port: number }): Promise<TcpRelay> {
  const pairs = new Set<[Socket, Socket]>();
  let connections = 0;
  let bytesUp = 0;
  let bytesDown = 0;
  let refusing = false;
  let holding = false;
  const held: [Socket, Buffer][] = [];
  const server: Server = createServer((client) => {
    connections++;
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = createConnection(target);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (b: Buffer) => {
      bytesUp += b.length;
      upstream.write(b);
    });
    upstream.on('data', (b: Buffer) => {
      bytesDown += b.length;
      if (holding) held.push([client, b]);
      else client.write(b);
    });
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    get connections() {
      return connections;
    },
    get open() {
      return pairs.size;
    },
    get bytesUp() {
      return bytesUp;
    },
    get bytesDown() {
      return bytesDown;
    },
    cutAll() {
      for (const [a, b] of pairs) {
        a.resetAndDestroy();
        b.destroy();
      }
      pairs.clear();
    },
    refuse(on) {
      refusing = on;
    },
    hold(on) {
      holding = on;
      if (!on) for (const [c, b] of held.splice(0)) if (!c.destroyed) c.write(b);
    },
    close() {
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
