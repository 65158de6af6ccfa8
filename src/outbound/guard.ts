/**
 * The one outbound guard (docs/outbound-guard.md): every request the server makes for
 * someone else — one-click unsubscribe, link checks, a user-named IMAP/SMTP host — asks it first.
 * Answers are data (`{ok:false, reason, detail}`), never throws, so callers report them as
 * results rather than as crashes.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Agent } from 'undici';
import { classifyAddress } from './address-policy.ts';
import { createPinnedAgent } from './connector.ts';
import { canonicalHost, parseAllowHosts, stripHost } from './hosts.ts';

export type LookupAddress = { address: string; family: 4 | 6 };
/** Resolves a host name to all its addresses; injectable so tests can play a hostile DNS. */
export type LookupFn = (hostname: string) => Promise<LookupAddress[]>;

export type GuardReason = 'scheme' | 'credentials' | 'port' | 'blocked_address' | 'dns' | 'invalid_url';
export type GuardRefusal = { ok: false; reason: GuardReason; detail: string };
export type UrlCheck = { ok: true; url: URL } | GuardRefusal;
export type Resolution = { ok: true; address: string; family: 4 | 6; addresses: LookupAddress[] } | GuardRefusal;

export type OutboundGuardOptions = {
  /** OUTBOUND_ALLOW_HOSTS: `host` or `host:port` whose non-public addresses may be reached. */
  allowHosts?: readonly string[];
  lookup?: LookupFn;
};

export type OutboundGuard = {
  /** Synchronous checks on the URL itself; host names are checked again when connecting. */
  checkUrl(url: string): UrlCheck;
  /** Resolve and check a host for a non-HTTP client (IMAP, SMTP): connect to `address`. */
  resolve(host: string, port: number): Promise<Resolution>;
  /** undici dispatcher that applies the same policy at connect time (made on first use). */
  readonly dispatcher: Agent;
  close(): Promise<void>;
};

// Fetch Standard §2.9 "bad port": ports of other protocols (SMTP 25, IMAP 143/993, …) that a
// browser never sends HTTP to, so a crafted URL cannot smuggle commands into them.
const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110,
  111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532,
  540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061,
  6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

const systemLookup: LookupFn = async (hostname) => {
  // `verbatim` keeps the resolver's order; `all` so that every address is checked, not just one.
  const found = await dnsLookup(hostname, { all: true, order: 'verbatim' });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

const refuse = (reason: GuardReason, detail: string): GuardRefusal => ({ ok: false, reason, detail });

export function createOutboundGuard(options: OutboundGuardOptions = {}): OutboundGuard {
  const isAllowedHost = parseAllowHosts(options.allowHosts ?? []);
  const lookup = options.lookup ?? systemLookup;

  /** `host` is the name the caller asked for; the allow list is keyed by it, not by the address. */
  function checkAddress(host: string, port: number, address: string): GuardRefusal | null {
    const verdict = classifyAddress(address);
    if (verdict.allowed || isAllowedHost(host, port)) return null;
    const range = verdict.via ? `${verdict.range} (via ${verdict.via})` : verdict.range;
    const shown = host === address ? address : `${host} → ${address}`;
    return refuse('blocked_address', `${shown} is ${range}`);
  }

  function checkUrl(input: string): UrlCheck {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      return refuse('invalid_url', 'not an absolute URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return refuse('scheme', `${url.protocol} is not http: or https:`);
    }
    // RFC 9110 §4.2.4 deprecates userinfo in http(s) URIs; a URL carrying it is either phishing
    // or asking us to send credentials we must never send.
    if (url.username !== '' || url.password !== '') return refuse('credentials', 'URL carries a user name or password');
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    if (port === 0 || BAD_PORTS.has(port)) return refuse('port', `port ${port} is not an HTTP port`);
    // WHATWG URL has already rewritten IPv4 shorthand (2130706433, 0x7f.1) to a dotted quad.
    const host = stripHost(url.hostname);
    if (host === '') return refuse('invalid_url', 'URL has no host');
    if (isIP(host) !== 0) {
      const blocked = checkAddress(host, port, host);
      if (blocked) return blocked;
    }
    return { ok: true, url };
  }

  async function resolve(hostInput: string, port: number): Promise<Resolution> {
    if (!Number.isInteger(port) || port < 1 || port > 65535) return refuse('port', `invalid port ${port}`);
    const host = canonicalHost(hostInput);
    if (host === null) return refuse('invalid_url', `invalid host ${JSON.stringify(hostInput)}`);
    const family = isIP(host);
    if (family === 4 || family === 6) {
      return (
        checkAddress(host, port, host) ?? { ok: true, address: host, family, addresses: [{ address: host, family }] }
      );
    }
    let addresses: LookupAddress[];
    try {
      addresses = await lookup(host);
    } catch (err) {
      return refuse('dns', `${host}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    const first = addresses[0];
    if (!first) return refuse('dns', `${host}: no addresses`);
    // Refuse if ANY answer is forbidden: with several answers the client may pick any of them,
    // and a rebinding attacker only needs one.
    for (const a of addresses) {
      const blocked = checkAddress(host, port, a.address);
      if (blocked) return blocked;
    }
    return { ok: true, address: first.address, family: first.family, addresses };
  }

  // made by the first outbound HTTP request (undici loads with it, connector.ts)
  let dispatcher: Agent | undefined;
  return {
    checkUrl,
    resolve,
    get dispatcher() {
      dispatcher ??= createPinnedAgent(resolve);
      return dispatcher;
    },
    close: async () => {
      await dispatcher?.close();
    },
  };
}
