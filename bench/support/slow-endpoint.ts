/**
 * A slow web server for benchmarks, in its own process so its CPU does not compete with the
 * code under test: answers every request after DELAY ms with a small cancel page (200).
 * Plain HTTP, or HTTPS when a key and certificate are given (TLS handshakes are counted).
 * GET /_stats answers at once with {requests, peak, handshakes} since the last /_stats; the
 * same line is printed on SIGTERM, which closes it.
 *
 *   node bench/support/slow-endpoint.ts <delayMs> [keyPath certPath]
 *
 * Prints {"port": n} when listening.
 */
import { readFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

const [delay = '200', keyPath, certPath] = process.argv.slice(2);
const page = '<html><head><title>Cancel your plan</title></head><body><h1>Cancel</h1><p>Manage plan.</p></body></html>';
let requests = 0;
let inFlight = 0;
let peak = 0;
let handshakes = 0;
const stats = () => JSON.stringify({ requests, peak, handshakes });

const handle = (req: IncomingMessage, res: ServerResponse) => {
  if (req.url === '/_stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(stats());
    requests = peak = handshakes = 0;
    return;
  }
  inFlight++;
  peak = Math.max(peak, inFlight);
  req.resume();
  req.on('end', () =>
    setTimeout(() => {
      requests++;
      inFlight--;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    }, Number(delay)),
  );
};

const server =
  keyPath && certPath
    ? https.createServer({ key: readFileSync(keyPath), cert: readFileSync(certPath) }, handle)
    : http.createServer(handle);
server.on('secureConnection', () => {
  handshakes++;
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => {
  process.stdout.write(`${stats()}\n`);
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
