/**
 * Host names in one canonical form, and the OUTBOUND_ALLOW_HOSTS exceptions (docs/outbound-guard.md).
 *
 * Every host, whether it comes from a URL, an IMAP/SMTP setting or the allow list, goes through
 * the WHATWG URL host parser: it lower-cases, applies IDNA (UTS #46) and rewrites IPv4 shorthand
 * such as `2130706433`, `0x7f.1` or `017700000001` to `127.0.0.1`. Comparing and classifying
 * that one form means an address cannot slip past by being spelled differently.
 */
import { isIP } from 'node:net';

/** `example.com`, `127.0.0.1` or `::1` (no brackets, no trailing dot); `null` if not a valid host. */
export function canonicalHost(input: string): string | null {
  let host = input.trim();
  if (isIP(host) === 6) host = `[${host}]`;
  // Anything that would make the URL parser read a port, userinfo or path is not a bare host.
  if (host === '' || /[/?#@\\\s]/.test(host) || (host.includes(':') && !/^\[[^\]]+\]$/.test(host))) return null;
  let parsed: URL;
  try {
    parsed = new URL(`http://${host}/`);
  } catch {
    return null;
  }
  return stripHost(parsed.hostname);
}

/** A URL's `hostname` without IPv6 brackets or the root-zone trailing dot. */
export function stripHost(hostname: string): string {
  const h = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

type AllowEntry = { host: string; port: number | undefined };

/**
 * The allow list as a predicate. Entries are `host`, `host:port`, `[v6]`, `[v6]:port` or a bare
 * IPv6 address. An entry matches the host exactly as the URL names it: allowing `127.0.0.1:8080`
 * does not allow `localhost:8080`, another port on 127.0.0.1, or a name resolving to it.
 */
export function parseAllowHosts(entries: readonly string[]): (host: string, port: number) => boolean {
  const list: AllowEntry[] = entries.map(parseEntry);
  if (list.length === 0) return () => false;
  return (host, port) => {
    const h = canonicalHost(host);
    return h !== null && list.some((e) => e.host === h && (e.port === undefined || e.port === port));
  };
}

function parseEntry(raw: string): AllowEntry {
  const entry = raw.trim();
  let host = entry;
  let port: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    host = bracketed[1]!;
    port = bracketed[2];
  } else if (entry.split(':').length === 2) {
    [host, port] = entry.split(':') as [string, string];
  }
  const canonical = canonicalHost(host);
  const portNumber = port === undefined ? undefined : Number(port);
  if (
    canonical === null ||
    (portNumber !== undefined && !(Number.isInteger(portNumber) && portNumber > 0 && portNumber < 65536))
  ) {
    // A typo here would silently fail open or closed; refuse to start instead.
    throw new Error(`OUTBOUND_ALLOW_HOSTS: invalid entry "${raw}"`);
  }
  return { host: canonical, port: portNumber };
}
