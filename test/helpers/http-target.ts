/**
 * A real HTTP server on 127.0.0.1 standing in for a website: it records every request, counts
 * TCP connections (so a test can prove a request was refused before a socket was ever opened),
 * and can hold requests open until the test releases them.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface HttpTarget {
  origin: string;
  port: number;
  seen: Seen[];
  /** TCP connections accepted so far */
  connections: number;
  /** while true, requests wait until release() */
  hold: boolean;
  release(): void;
  waitForRequests(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startHttpTarget(
  respond: (req: IncomingMessage, res: ServerResponse, body: string) => void = (_req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<html><title>Cancel your plan</title><h1>Cancel</h1></html>');
  },
): Promise<HttpTarget> {
  const waiting: (() => void)[] = [];
  const target: HttpTarget = {
    origin: '',
    port: 0,
    seen: [],
    connections: 0,
    hold: false,
    release() {
      target.hold = false;
      for (const go of waiting.splice(0)) go();
    },
    async waitForRequests(n, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (target.seen.length < n) {
        if (Date.now() > until) throw new Error(`expected ${n} requests, saw ${target.seen.length}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      target.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const go = () => respond(req, res, body);
      if (target.hold) waiting.push(go);
      else go();
    });
  });
  server.on('connection', () => {
    target.connections++;
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  target.port = (server.address() as AddressInfo).port;
  target.origin = `http://127.0.0.1:${target.port}`;
  return target;
}
