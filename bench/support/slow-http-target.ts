/**
 * A plain-HTTP website for the link-check benchmark, in its own process so its CPU does not
 * compete with the worker under test: answers every GET after DELAY ms with a small cancel
 * page. GET /_stats answers at once with the requests served and the peak in flight since the
 * last /_stats. argv: delayMs. Prints {"port": n} when listening; SIGTERM closes it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const delay = Number(process.argv[2] ?? 200);
const page = '<html><head><title>Cancel your plan</title></head><body><h1>Cancel</h1><p>Manage plan.</p></body></html>';
let requests = 0;
let inFlight = 0;
let peak = 0;
const server = createServer((req, res) => {
  if (req.url === '/_stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ requests, peak }));
    requests = 0;
    peak = 0;
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
    }, delay),
  );
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
