/**
 * An HTTPS endpoint for benchmarks, in its own process so its CPU does not compete with
 * the code under test: answers every request after DELAY ms and reports counts on SIGTERM.
 * argv: keyPath certPath delayMs. Prints {"port": n} when listening.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

const [keyPath, certPath, delay] = process.argv.slice(2);
let requests = 0;
let inFlight = 0;
let peak = 0;
let handshakes = 0;
const server = createServer({ key: readFileSync(keyPath!), cert: readFileSync(certPath!) }, (req, res) => {
  inFlight++;
  peak = Math.max(peak, inFlight);
  req.resume();
  req.on('end', () =>
    setTimeout(() => {
      requests++;
      inFlight--;
      res.writeHead(200).end('ok');
    }, Number(delay)),
  );
});
server.on('secureConnection', () => {
  handshakes++;
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => {
  process.stdout.write(`${JSON.stringify({ requests, peak, handshakes })}\n`);
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
