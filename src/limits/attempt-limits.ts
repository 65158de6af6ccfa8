/**
 * Attempt limits (docs/security.md, "Attempt limits"): what one mailbox address and one client
 * IP may make optout do, so the service is no password-guessing proxy and no amplifier.
 *
 * - Failed sign-ins: per address and per IP in a sliding hour. A sign-in reserves a point in
 *   both before the mail server is contacted; a refusal there is the answer, with no
 *   connection made. The points come back unless the server refused the password, so only
 *   failures count, and attempts in flight count too (a burst cannot slip past the limit).
 * - Scans started per IP, and subscriptions acted on (unsubscribe) per IP, per hour.
 * - Concurrent /ws connections per IP (connection-leases.ts).
 *
 * Counters live in PostgreSQL when DATABASE_URL is set, so every instance counts against the
 * same limit (src/http/rate-limit.ts; in memory on the embedded database, one process). Keys
 * are HMACs under a server secret: neither the address nor the IP is ever stored.
 */
import { createHmac } from 'node:crypto';
import type { Config } from '../config.ts';
import { createRateLimit, type RateLimit } from '../http/rate-limit.ts';
import { serverSecret } from '../quota/secret.ts';
import type { Db } from '../storage/index.ts';
import { type ConnectionLeases, createConnectionLeases } from './connection-leases.ts';

const HOUR = 3600;

export type Refusal = { ok: false; retryAfter: number };

export interface SignInReservation {
  ok: true;
  /** the sign-in's outcome: 'refused' (wrong credentials) keeps the points, anything else returns them */
  settle(outcome: 'refused' | 'other'): Promise<void>;
}

export interface AttemptLimits {
  /** Before a password sign-in: refused when the address or the IP has used up its failures. */
  signIn(email: string, ip: string): Promise<SignInReservation | (Refusal & { per: 'address' | 'ip' })>;
  /** One scan started from `ip`. */
  scan(ip: string): Promise<{ ok: true } | Refusal>;
  /** `count` subscriptions acted on from `ip`; nothing is counted when refused. */
  unsubscribe(ip: string, count: number): Promise<{ ok: true } | Refusal>;
  connections: ConnectionLeases;
  close(): Promise<void>;
}

export async function createAttemptLimits(db: Db, limits: Config['limits']): Promise<AttemptLimits> {
  const secret = await serverSecret(db, 'attempt-limits-hmac');
  const hash = (kind: string, value: string) => createHmac('sha256', secret).update(`${kind}\n${value}`).digest('hex');
  const perAddress = createRateLimit(db, {
    name: 'signin-fail-addr',
    points: limits.signInFailuresPerAddress,
    durationSeconds: HOUR,
  });
  const perIp = createRateLimit(db, {
    name: 'signin-fail-ip',
    points: limits.signInFailuresPerIp,
    durationSeconds: HOUR,
  });
  const scans = createRateLimit(db, { name: 'scan-ip', points: limits.scansPerIp, durationSeconds: HOUR });
  const unsubscribes = createRateLimit(db, {
    name: 'unsubscribe-ip',
    points: limits.unsubscribesPerIp,
    durationSeconds: HOUR,
  });
  const connections = await createConnectionLeases(db, limits.connectionsPerIp, (ip) => hash('ip', ip));

  return {
    async signIn(email, ip) {
      const a = hash('address', email.trim().toLowerCase());
      const i = hash('ip', ip);
      const [byAddress, byIp] = await Promise.all([perAddress.consume(a), perIp.consume(i)]);
      if (!byAddress.allowed || !byIp.allowed) {
        // Nothing is attempted, so nothing is counted.
        await Promise.all([perAddress.reward(a), perIp.reward(i)]);
        const refused = !byAddress.allowed ? byAddress : byIp;
        return { ok: false, retryAfter: refused.resetSeconds, per: !byAddress.allowed ? 'address' : 'ip' };
      }
      let settled = false;
      return {
        ok: true,
        async settle(outcome) {
          if (settled) return;
          settled = true;
          if (outcome !== 'refused') await Promise.all([perAddress.reward(a), perIp.reward(i)]);
        },
      };
    },
    scan: (ip) => take(scans, hash('ip', ip), 1),
    unsubscribe: (ip, count) => take(unsubscribes, hash('ip', ip), count),
    connections,
    close: () => connections.close(),
  };
}

async function take(limit: RateLimit, key: string, points: number): Promise<{ ok: true } | Refusal> {
  if (points <= 0) return { ok: true };
  const r = await limit.consume(key, points);
  if (r.allowed) return { ok: true };
  await limit.reward(key, points);
  return { ok: false, retryAfter: r.resetSeconds };
}
