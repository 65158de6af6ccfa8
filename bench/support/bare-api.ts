/**
 * The baseline for bench/api: a bare Fastify server, in its own process, that answers GETs
 * from a Map of URL → response fetched from optout once at the start of the run — the same
 * bytes and content type, nothing else (no validation, serialization, headers plugins,
 * database or logging). argv: path of a JSON file {url: {contentType, body}}.
 * Prints {"port": n} when listening; SIGTERM closes it.
 *
 * It holds nextTick's fast path as the service does (src/memory/tick-shape.ts): without that, V8's
 * memory reducer, which runs while this server idles during optout's turns, can leave every
 * later nextTick on the slow path, and the baseline slower than it can be — which would flatter
 * optout's ratio.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { keepTickShape } from '../../src/memory/tick-shape.ts';

keepTickShape();

const responses = new Map(
  Object.entries(
    JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Record<string, { contentType: string; body: string }>,
  ),
);

const app = Fastify({ logger: false });
app.get('/*', (req, reply) => {
  const r = responses.get(req.url);
  if (!r) return reply.code(404).send({ code: 'NOT_FOUND', message: 'not in the recorded set' });
  return reply.type(r.contentType).send(r.body);
});
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ port: (app.server.address() as AddressInfo).port })}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
