/**
 * Which IP addresses the server may open a connection to on someone else's behalf.
 *
 * A URL in a List-Unsubscribe header or a link-check request is chosen by a stranger, so the
 * only addresses allowed are plain public unicast ones. The range names come from ipaddr.js
 * (`range()`), which tracks the IANA special-purpose registries (RFC 6890); the few extra
 * rules here cover what it does not know: cloud metadata endpoints and IPv6 forms that carry
 * an IPv4 address inside them.
 */
import ipaddr from 'ipaddr.js';

export type AddressClass = {
  allowed: boolean;
  /** ipaddr.js range name (`loopback`, `private`, `unicast`, …), `metadata`, `nonGlobal` or `invalid`. */
  range: string;
  /** Set when the verdict is about an IPv4 address carried inside an IPv6 one. */
  via?: 'ipv4Mapped' | 'nat64' | '6to4' | 'teredo';
};

// Instance metadata services hand out credentials to whoever asks from inside the VM. Most sit
// in ranges refused anyway (link-local, CGNAT, unique-local); naming them gives a clearer reason,
// and Azure's wire server (168.63.129.16) is a public-looking address that must never be reached.
const METADATA = new Set([
  '169.254.169.254', // AWS, GCP, Azure IMDS, OpenStack, DigitalOcean
  '169.254.170.2', // AWS ECS task metadata
  '100.100.100.200', // Alibaba Cloud
  '168.63.129.16', // Azure wire server
  'fd00:ec2::254', // AWS IMDS over IPv6
]);

/** Classify one address given as text (dotted-quad IPv4 or IPv6, as DNS and WHATWG URL produce). */
export function classifyAddress(ip: string): AddressClass {
  if (ipaddr.IPv4.isValidFourPartDecimal(ip)) return classifyV4(ipaddr.IPv4.parse(ip));
  if (ipaddr.IPv6.isValid(ip)) return classifyV6(ipaddr.IPv6.parse(ip));
  // Shorthand IPv4 (`127.1`, `0x7f.1`, `2130706433`) is refused here; callers normalise
  // host names through the WHATWG URL parser first, which turns those into dotted quads.
  return { allowed: false, range: 'invalid' };
}

function classifyV4(addr: ipaddr.IPv4): AddressClass {
  if (METADATA.has(addr.toString())) return { allowed: false, range: 'metadata' };
  const range = addr.range();
  // Only `unicast` (ipaddr.js's name for "none of the special ranges") is public. This refuses
  // loopback, private (RFC 1918), linkLocal (RFC 3927), carrierGradeNat (RFC 6598), multicast,
  // unspecified (0/8), broadcast, and `reserved`, which holds the documentation nets
  // (RFC 5737), benchmarking 198.18/15 (RFC 2544), 192.0.0/24 (RFC 6890) and 240/4.
  return { allowed: range === 'unicast', range };
}

function classifyV6(addr: ipaddr.IPv6): AddressClass {
  if (METADATA.has(addr.toString())) return { allowed: false, range: 'metadata' };
  const range = addr.range();
  const p = addr.parts;
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d (RFC 4291 §2.5.5.2): the socket talks IPv4 to a.b.c.d
      return embedded(addr.toIPv4Address(), 'ipv4Mapped');
    case 'rfc6052': // NAT64 (RFC 6052): only the well-known 64:ff9b::/96 maps to public IPv4
      if (p[1] === 0xff9b && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) {
        return embedded(v4(p[6]!, p[7]!), 'nat64');
      }
      return { allowed: false, range }; // 64:ff9b:1::/48 is for local use (RFC 8215)
    case '6to4': // 2002:aabb:ccdd::/48 tunnels to a.b.c.d (RFC 3056 §2)
      return embedded(v4(p[1]!, p[2]!), '6to4');
    case 'teredo': {
      // RFC 4380 §4: server IPv4 in bits 32–63, client IPv4 bit-inverted in the last 32 bits.
      const server = classifyV4(v4(p[2]!, p[3]!));
      const client = classifyV4(v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff));
      const bad = !server.allowed ? server : client;
      return { allowed: server.allowed && client.allowed, range: bad.range, via: 'teredo' };
    }
    case 'unicast':
      // ipaddr.js calls anything unlisted `unicast`, including IPv4-compatible ::a.b.c.d
      // (deprecated, RFC 4291 §2.5.5.1) and unassigned space. IANA has only allocated
      // global unicast from 2000::/3 (RFC 4291 §2.4), so require that prefix.
      if ((p[0]! & 0xe000) === 0x2000) return { allowed: true, range };
      return { allowed: false, range: 'nonGlobal' };
    default:
      // loopback, unspecified, linkLocal (fe80::/10), uniqueLocal (fc00::/7), multicast,
      // deprecatedSiteLocal, reserved (documentation 2001:db8::/32, 3fff::/20), benchmarking,
      // rfc6145 (IPv4-translated), discard, orchid, …: none of them a public web server.
      return { allowed: false, range };
  }
}

function embedded(inner: ipaddr.IPv4, via: NonNullable<AddressClass['via']>): AddressClass {
  return { ...classifyV4(inner), via };
}

function v4(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}
