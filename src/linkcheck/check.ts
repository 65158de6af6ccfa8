/**
 * Re-verification of one catalog link: website, cancel.url or cancel.help_url
 * (outcomes in docs/api.md, `POST /link-check`). One GET through the outbound guard, redirects followed and
 * recorded, then one outcome an editor can act on and a hash of the page text for drift.
 *
 * Every expected result, a dead host or a refusal by our own guard included, comes back as
 * data; only a caller's bug (no official domains) throws.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { type GuardedResponse, guardedRequest, type RedirectHop } from '../outbound/fetch.ts';
import type { OutboundGuard } from '../outbound/guard.ts';
import { canonicalHost, stripHost } from '../outbound/hosts.ts';
import { decodeBody, isHtml, normaliseText, notFoundPhrase, readHtml } from './text.ts';

export type LinkOutcome = 'ok' | 'moved' | 'broken' | 'blocked' | 'soft_404' | 'off_domain';

export type LinkCheckTarget = {
  url: string;
  /** The record's `domains.web` (plus any allow-listed platform); subdomains count as official. */
  officialDomains: readonly string[];
  /** `content_hash` of the last check, to set `content_changed`. */
  previousHash?: string | null;
};

export type LinkCheckOptions = { timeoutMs?: number; maxBytes?: number; maxRedirects?: number; userAgent?: string };

export type LinkCheckResult = {
  outcome: LinkOutcome;
  http_status: number | null;
  final_url: string | null;
  redirects: RedirectHop[];
  /** sha256 hex of the normalised visible text; only for a 2xx page on an official host. */
  content_hash: string | null;
  content_changed: boolean | null;
  /** Why, starting with a stable token: 'http 404', 'timeout: …', 'refused by outbound guard: …'. */
  detail: string;
  duration_ms: number;
};

/** Names the checker; a deployment should pass one with a URL explaining it (BASE_URL). */
export const DEFAULT_USER_AGENT = 'optout-linkcheck/1.0';

export async function checkLink(
  guard: OutboundGuard,
  target: LinkCheckTarget,
  opts: LinkCheckOptions = {},
): Promise<LinkCheckResult> {
  const started = performance.now();
  const official = officialHosts(target.officialDomains);
  const res = await guardedRequest(guard, target.url, {
    method: 'GET',
    headers: { 'user-agent': opts.userAgent ?? DEFAULT_USER_AGENT, accept: 'text/html,*/*;q=0.8' },
    timeoutMs: opts.timeoutMs ?? 10_000,
    maxBytes: opts.maxBytes ?? 512 * 1024,
    maxRedirects: opts.maxRedirects ?? 5,
  });
  const result = (outcome: LinkOutcome, detail: string, extra: Partial<LinkCheckResult> = {}): LinkCheckResult => ({
    outcome,
    http_status: res.ok ? res.status : null,
    final_url: res.ok ? res.finalUrl : null,
    redirects: res.redirects,
    content_hash: null,
    content_changed: null,
    detail,
    ...extra,
    duration_ms: Math.round(performance.now() - started),
  });

  // Not found, server errors, timeouts, DNS and TLS failures are all `broken` to an editor; the
  // detail keeps which. A guard refusal is `broken` too: the link leads somewhere we never go.
  if (!res.ok) {
    const prefix = res.reason === 'blocked' ? 'refused by outbound guard' : res.reason.replaceAll('_', ' ');
    return result('broken', `${prefix}: ${res.detail}`);
  }
  // Off-domain is judged on the final URL only: a chain that leaves and comes back is fine,
  // one that ends elsewhere needs review whatever that host answered.
  const finalUrl = new URL(res.finalUrl);
  const host = stripHost(finalUrl.hostname);
  if (!isOfficialHost(host, official)) {
    return result('off_domain', `final host ${host} is not on ${[...official].join(', ')}`);
  }
  // 401, 403 and 429 are bot protection or rate limits, not a broken link.
  if (res.status === 401 || res.status === 403 || res.status === 429) return result('blocked', `http ${res.status}`);
  // 404/410, 5xx, other 4xx, and a 3xx we could not follow (no Location, 304) are all broken.
  if (res.status < 200 || res.status > 299) {
    const noLocation = res.status >= 300 && res.status < 400 ? ' without Location' : '';
    return result('broken', `http ${res.status}${noLocation}`);
  }

  const page = readPage(res);
  const hashed = {
    content_hash: page.hash,
    content_changed: target.previousHash ? page.hash !== target.previousHash : null,
  };
  const truncated = res.truncated ? `; body truncated at ${res.body.length} bytes` : '';
  // soft_404, first kind: a 200 whose title or first heading says the page is not there.
  if (page.notFound) return result('soft_404', `http ${res.status}, page reads "${page.notFound}"${truncated}`, hashed);
  // soft_404, second kind: a deep link that now lands on the (locale) home page.
  const requested = new URL(target.url).pathname;
  if (isHomePath(finalUrl.pathname) && !isHomePath(requested)) {
    return result('soft_404', `http ${res.status}, landed on the home page ${finalUrl.pathname}${truncated}`, hashed);
  }
  // A redirect within the site: a new path on an official host is `moved` (update the record).
  // Redirects that keep the path (http→https, www, a trailing slash, query) are still `ok`.
  if (res.redirects.length > 0 && trimSlash(finalUrl.pathname) !== trimSlash(requested)) {
    return result('moved', `http ${res.status} at ${finalUrl.pathname}${truncated}`, hashed);
  }
  return result('ok', `http ${res.status}${truncated}`, hashed);
}

/** Host equal to an official domain or below it; both sides in `canonicalHost` form. */
export function isOfficialHost(host: string, official: ReadonlySet<string>): boolean {
  if (official.has(host)) return true;
  // An IP literal has no parent domain. (Canonical forms already keep "127.0.0.1" from ending in
  // ".<name>", since a numeric last label makes a host IPv4; this says so rather than relying on it.)
  if (isIP(host) !== 0) return false;
  for (const d of official) if (host.endsWith(`.${d}`)) return true;
  return false;
}

function officialHosts(domains: readonly string[]): Set<string> {
  const hosts = new Set<string>();
  for (const d of domains) {
    const h = canonicalHost(d);
    if (h === null) throw new TypeError(`checkLink: invalid official domain ${JSON.stringify(d)}`);
    hosts.add(h);
  }
  if (hosts.size === 0) throw new TypeError('checkLink: officialDomains is empty; every host would be off_domain');
  return hosts;
}

function readPage(res: GuardedResponse): { hash: string; notFound: string | null } {
  const type = [res.headers['content-type']].flat()[0];
  // A PDF or image has no text to normalise; its bytes are its content.
  if (!isHtml(type) && !/^text\//i.test(type ?? '')) return { hash: sha256(res.body), notFound: null };
  const body = decodeBody(res.body, type);
  if (!isHtml(type)) return { hash: sha256(normaliseText(body)), notFound: null };
  const page = readHtml(body);
  const notFound = [page.title, page.heading].map((t) => (t ? notFoundPhrase(t) : null)).find(Boolean);
  return { hash: sha256(page.text), notFound: notFound ?? null };
}

// '/', '/en', '/de-de/', '/pt_BR': where a site sends a link it no longer has.
const isHomePath = (path: string) => /^\/(?:[a-z]{2}(?:[-_][a-z]{2,4})?\/?)?$/i.test(path);
const trimSlash = (path: string) => (path.length > 1 ? path.replace(/\/+$/, '') : path);
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
