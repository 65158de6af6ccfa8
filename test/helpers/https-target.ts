/**
 * An HTTPS server on 127.0.0.1 with the test certificate, standing in for senders'
 * one-click endpoints: records every request; the response is chosen per path.
 */
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Seen } from './http-target.ts';
import { certPath, keyPath } from './tls-ca.ts';

export interface HttpsTarget {
  origin: string;
  port: number;
  seen: Seen[];
  connections: number;
  close(): Promise<void>;
}

export async function startHttpsTarget(
  respond: (path: string, res: ServerResponse) => void = (_p, res) => res.writeHead(200).end('ok'),
  delayMs = 0,
): Promise<HttpsTarget> {
  const target: HttpsTarget = { origin: '', port: 0, seen: [], connections: 0, close: async () => {} };
  const server = createServer({ key: readFileSync(keyPath), cert: readFileSync(certPath) }, (req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      target.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      setTimeout(() => respond(req.url ?? '', res), delayMs);
    });
  });
  server.on('connection', () => {
    target.connections++;
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  target.port = (server.address() as AddressInfo).port;
  target.origin = `https://127.0.0.1:${target.port}`;
  target.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return target;
}
