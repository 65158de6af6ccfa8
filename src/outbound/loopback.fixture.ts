/**
 * Real HTTP servers on 127.0.0.1 for the outbound tests. Each counts TCP connections as well as
 * requests, so a test can prove the guard refused before a socket was ever opened.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = { method: string; path: string; headers: IncomingHttpHeaders; body: string };

export type LoopbackServer = {
  port: number;
  /** `http://127.0.0.1:<port>` without a trailing slash. */
  origin: string;
  received: Received[];
  connections: () => number;
  close: () => Promise<void>;
};

type Handler = (req: IncomingMessage, res: ServerResponse, received: Received) => void;

export async function startServer(handler: Handler): Promise<LoopbackServer> {
  const received: Received[] = [];
  let connections = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const entry = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString(),
    };
    received.push(entry);
    handler(req, res, entry);
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    received,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
