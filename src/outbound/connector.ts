/**
 * The guard's undici Agent: the address policy runs inside the connection attempt itself.
 *
 * Checking a URL's host and then letting the HTTP client resolve it again leaves a gap: a DNS
 * answer with a short TTL can name a public address for the check and 127.0.0.1 for the
 * connection ("DNS rebinding"). Here the socket's own `lookup` is the checked resolution, so the
 * connection goes to an address that was just classified, and to nothing else.
 */
import type { LookupAddress as NodeLookupAddress } from 'node:dns';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import type { Agent, buildConnector } from 'undici';
import type { GuardRefusal, Resolution } from './guard.ts';

const require = createRequire(import.meta.url);

/**
 * undici, loaded by the first outbound request rather than at start: ~5 MiB of heap that a
 * service which has not checked a link or sent an unsubscribe yet does not need (bench/memory).
 */
export const undici = (): typeof import('undici') => require('undici') as typeof import('undici');

/** Thrown inside undici when the policy refuses a connection; fetch.ts maps it to `blocked`. */
export class OutboundBlockedError extends Error {
  override name = 'OutboundBlockedError';
  readonly code = 'ERR_OUTBOUND_BLOCKED';
  readonly refusal: GuardRefusal;
  constructor(refusal: GuardRefusal) {
    super(`outbound connection refused (${refusal.reason}): ${refusal.detail}`);
    this.refusal = refusal;
  }
}

type Resolve = (host: string, port: number) => Promise<Resolution>;
type NodeLookupCallback = (err: Error | null, address: string | NodeLookupAddress[], family?: number) => void;

const CONNECT_TIMEOUT_MS = 10_000;
// One connector per destination port, because `lookup` is not told the port and an allow-list
// entry may name one. Each connector keeps its own TLS session cache; the map stays tiny
// (80, 443, a test port or two) but is bounded in case a caller wanders across many ports.
const MAX_CONNECTORS = 32;

export function createPinnedAgent(resolve: Resolve): Agent {
  const connectors = new Map<number, buildConnector.connector>();

  function connectorFor(port: number): buildConnector.connector {
    let c = connectors.get(port);
    if (!c) {
      c = undici().buildConnector({ timeout: CONNECT_TIMEOUT_MS, lookup: pinnedLookup(resolve, port) });
      if (connectors.size >= MAX_CONNECTORS) connectors.delete(connectors.keys().next().value!);
      connectors.set(port, c);
    }
    return c;
  }

  const connect: buildConnector.connector = (opts, callback) => {
    const port = opts.port ? Number(opts.port) : opts.protocol === 'https:' ? 443 : 80;
    if (isIP(opts.hostname) === 0) {
      connectorFor(port)(opts, callback);
      return;
    }
    // Node's net.connect skips `lookup` for IP literals, so they are classified here.
    resolve(opts.hostname, port).then(
      (r) => {
        if (r.ok) connectorFor(port)(opts, callback);
        else callback(new OutboundBlockedError(r), null);
      },
      (err: Error) => callback(err, null),
    );
  };

  return new (undici().Agent)({ connect });
}

function pinnedLookup(resolve: Resolve, port: number) {
  return (hostname: string, options: { family?: number | string; all?: boolean }, cb: NodeLookupCallback) => {
    resolve(hostname, port).then(
      (r) => {
        if (!r.ok) {
          cb(r.reason === 'dns' ? dnsError(hostname, r.detail) : new OutboundBlockedError(r), []);
          return;
        }
        // Every address was checked; hand Node only those, never a fresh resolution.
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
        const list = family === 4 || family === 6 ? r.addresses.filter((a) => a.family === family) : r.addresses;
        const first = list[0];
        if (!first) cb(dnsError(hostname, `no IPv${family} address`), []);
        else if (options.all) cb(null, list);
        else cb(null, first.address, first.family);
      },
      (err: Error) => cb(err, []),
    );
  };
}

function dnsError(hostname: string, detail: string): Error {
  return Object.assign(new Error(`DNS lookup failed: ${detail}`), { code: 'ENOTFOUND', hostname });
}
