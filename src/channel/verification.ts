/**
 * Verification of earlier unsubscriptions (kept by the client, never by the server):
 * a list still mailing more than 48 hours after the person unsubscribed is marked
 * `ineffective`; one that went quiet is `verified_quiet`. 48 h is the grace period
 * RFC 8058 §4 hints at ("…should stop sending within two days") — senders need a moment.
 */
import type { Subscription as ScannedSubscription } from '../mailbox/types.ts';
import type { Subscription, Verification } from './wire-subscription.ts';

export const GRACE_MS = 48 * 3600_000;

export function markVerification(s: ScannedSubscription, previous: { list_key: string; at: string }[]): Subscription {
  const earlier = previous.filter((p) => p.list_key === s.list_key).sort((a, b) => b.at.localeCompare(a.at))[0];
  if (!earlier) return s;
  const at = Date.parse(earlier.at);
  const last = s.last_seen ? Date.parse(s.last_seen) : 0;
  const verification: Verification =
    last > at + GRACE_MS ? 'ineffective' : Date.now() > at + GRACE_MS ? 'verified_quiet' : 'pending';
  return { ...s, unsubscribed_at: earlier.at, verification };
}

/** list_key → the latest earlier unsubscription from it (ms), for the scan to count mail since. */
export function latestUnsubscribes(previous: { list_key: string; at: string }[]): Map<string, number> {
  const latest = new Map<string, number>();
  for (const p of previous) {
    const at = Date.parse(p.at);
    if (!Number.isNaN(at) && at > (latest.get(p.list_key) ?? Number.NEGATIVE_INFINITY)) latest.set(p.list_key, at);
  }
  return latest;
}

/** One status per earlier unsubscription the client sent, including lists that went silent. */
export function summarizeVerification(
  previous: { list_key: string; at: string }[],
  found: Map<string, Subscription>,
  now = Date.now(),
): { list_key: string; at: string; status: Verification }[] {
  const byKey = new Map([...found.values()].map((s) => [s.list_key, s]));
  const latest = new Map<string, string>();
  for (const p of previous) if ((latest.get(p.list_key) ?? '') < p.at) latest.set(p.list_key, p.at);
  return [...latest].map(([list_key, at]) => ({
    list_key,
    at,
    status:
      byKey.get(list_key)?.verification ??
      (now > Date.parse(at) + GRACE_MS ? ('verified_quiet' as const) : ('pending' as const)),
  }));
}
