/**
 * RFC 8058 one-click unsubscribe: one POST to the https URI from a List-Unsubscribe header.
 *
 * The URI was written by whoever sent the mail, so the request goes through the outbound guard
 * (`guardedRequest`: address policy, pinned DNS, bounded time and size) and carries nothing of
 * ours: no cookies, no credentials, no Referer. The outcome is data a person can read; a sender
 * that refuses, redirects or stalls is an expected answer, not an exception.
 */
import { guardedRequest } from '../outbound/fetch.ts';
import type { OutboundGuard } from '../outbound/guard.ts';

export type OneClickOptions = {
  /** One deadline for connect, request and answer; default 10 000 ms. */
  timeoutMs?: number;
  /** At most this much of the answer is read; default 64 KiB. The body is never shown. */
  maxBytes?: number;
  userAgent?: string;
};

export type OneClickFailure = 'not_https' | 'blocked' | 'timeout' | 'network' | 'tls' | 'dns' | 'rejected';

export type OneClickResult =
  | { ok: true; status: number; detail: string }
  | { ok: false; reason: OneClickFailure; status: number | null; detail: string };

// RFC 8058 §3.1: the POST body is this key/value pair and nothing else.
export const ONE_CLICK_BODY = 'List-Unsubscribe=One-Click';
// An honest User-Agent: the sender can tell an automated request made on the
// person's behalf, rather than a browser spoofed to get past its firewall.
export const DEFAULT_USER_AGENT = 'optout/0.1 (RFC 8058 one-click unsubscribe)';

export async function postOneClick(
  guard: OutboundGuard,
  url: string,
  opts: OneClickOptions = {},
): Promise<OneClickResult> {
  const { timeoutMs = 10_000, maxBytes = 64 * 1024, userAgent = DEFAULT_USER_AGENT } = opts;
  const parsed = URL.parse(url);
  if (!parsed) return fail('blocked', 'The unsubscribe address is not a valid web address and was not contacted.');
  // RFC 8058 §3.1: the List-Unsubscribe header "MUST contain one HTTPS URI"; an http: URI (or
  // any other scheme) does not qualify for one-click, and we never send the POST in clear.
  if (parsed.protocol !== 'https:') {
    return fail(
      'not_https',
      `Only https addresses are used for one-click; this one (${parsed.protocol}) was not contacted.`,
    );
  }
  const res = await guardedRequest(guard, url, {
    method: 'POST',
    // RFC 8058 §3.2 allows multipart/form-data or urlencoded; every receiver in practice
    // sends urlencoded, so that is what senders are built to accept.
    // Only these headers are given: RFC 8058 §3.1 says the POST "MUST NOT include cookies,
    // HTTP authorization, or any other context information". guardedRequest adds none.
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': userAgent },
    body: ONE_CLICK_BODY,
    // RFC 8058 §3.1: the sender "MUST NOT return an HTTPS redirect". Following one would turn
    // the POST into a GET (Fetch §4.4) and could lead anywhere, so a 3xx is an answer, not a hop.
    followRedirects: false,
    timeoutMs,
    maxBytes,
  });
  if (!res.ok) {
    // followRedirects is off, so too_many_redirects cannot happen; it would be a network oddity.
    const reason = res.reason === 'too_many_redirects' ? 'network' : res.reason;
    return fail(reason, describeFailure(reason, res.detail, timeoutMs));
  }
  const { status } = res;
  // Any 2xx says the sender took the request. It does not prove the list stopped sending
  // (a 2xx means "requested", not "unsubscribed"); a later scan can tell (docs/unsubscribe.md).
  if (status >= 200 && status < 300) {
    return { ok: true, status, detail: `The sender accepted the one-click request (HTTP ${status}).` };
  }
  if (status >= 300 && status < 400) {
    return fail(
      'rejected',
      `The sender answered with a redirect (HTTP ${status}), which one-click does not allow; it was not followed.`,
      status,
    );
  }
  return fail('rejected', `The sender's server refused it (HTTP ${status}).`, status);
}

function fail(reason: OneClickFailure, detail: string, status: number | null = null): OneClickResult {
  return { ok: false, reason, status, detail };
}

function describeFailure(reason: OneClickFailure, detail: string, timeoutMs: number): string {
  switch (reason) {
    case 'blocked':
      return describeBlocked(detail);
    case 'timeout':
      return `The sender's server did not answer within ${formatDuration(timeoutMs)}.`;
    case 'tls':
      return "A secure connection to the sender's server could not be made (its certificate or TLS failed), so nothing was sent.";
    case 'dns':
      return "The sender's host name could not be found.";
    default:
      return "The sender's server could not be reached.";
  }
}

/** guardedRequest's `blocked` detail starts with the guard's reason (docs/outbound-guard.md). */
function describeBlocked(detail: string): string {
  const why = detail.slice(0, detail.indexOf(':'));
  if (why === 'port') return 'The address uses a port reserved for another protocol and was not contacted.';
  if (why === 'credentials') return 'The address carries a user name or password and was not contacted.';
  if (why === 'invalid_url') return 'The unsubscribe address is not a valid web address and was not contacted.';
  return 'The address points to a private network and was not contacted.';
}

function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} second${s === 1 ? '' : 's'}`;
}
