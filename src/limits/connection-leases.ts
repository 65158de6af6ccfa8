/**
 * Concurrent /ws connections per client IP. Each open connection holds a lease; a new one is
 * refused while the client holds `max`. On PostgreSQL the leases are rows of `ws_leases`
 * (migration 0007) shared by every instance: taken under a transaction-scoped advisory lock
 * per client, so two instances cannot both grant the last place; renewed while the connection
 * lives, and left to lapse when an instance dies without releasing them. On the embedded
 * database (one process) they are counted in memory. The client is known by an HMAC of its IP.
 *
 * If the database cannot be reached, leases are counted in this process alone until it can:
 * an outage must not lock everybody out.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../storage/index.ts';

export interface Lease {
  release(): void;
}

export interface ConnectionLeases {
  readonly max: number;
  /** a lease, or when the client holds `max` already, how long to wait (seconds) */
  acquire(ip: string): Promise<Lease | { refused: true; retryAfter: number }>;
  close(): Promise<void>;
}

/** How long a lease outlives its last renewal, and how often the living ones are renewed. */
const LEASE_SECONDS = 90;
const RENEW_MS = 30_000;
/** What a refused client is told to wait: connections end at their own pace. */
const RETRY_AFTER_SECONDS = 30;

export async function createConnectionLeases(
  db: Db,
  max: number,
  keyOf: (ip: string) => string,
): Promise<ConnectionLeases> {
  const local = new Map<string, number>();
  const localLease = (key: string): Lease => {
    local.set(key, (local.get(key) ?? 0) + 1);
    let done = false;
    return {
      release() {
        if (done) return;
        done = true;
        const n = (local.get(key) ?? 1) - 1;
        if (n <= 0) local.delete(key);
        else local.set(key, n);
      },
    };
  };
  const refused = { refused: true as const, retryAfter: RETRY_AFTER_SECONDS };

  if (!db.pool) {
    return {
      max,
      async acquire(ip) {
        const key = keyOf(ip);
        return (local.get(key) ?? 0) >= max ? refused : localLease(key);
      },
      async close() {},
    };
  }

  const held = new Set<string>(); // lease ids of this instance, renewed together
  // Releases of this instance still being written: a reconnect right after a close must not
  // be counted against the lease it just gave back.
  const releasing = new Set<Promise<unknown>>();
  const renew = setInterval(() => {
    if (held.size === 0) return;
    db.query(`update ws_leases set expires_at = now() + make_interval(secs => $2) where id = any($1)`, [
      [...held],
      LEASE_SECONDS,
    ]).catch(() => {}); // the next round tries again; a lapsed lease only frees a place
  }, RENEW_MS);
  renew.unref();

  return {
    max,
    async acquire(ip) {
      const key = keyOf(ip);
      const id = randomUUID();
      if (releasing.size > 0) await Promise.all(releasing);
      let granted: boolean;
      try {
        granted = await db.transaction(async (tx) => {
          await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`ws_leases:${key}`]);
          await tx.query('delete from ws_leases where client_key = $1 and expires_at < now()', [key]);
          const { rows } = await tx.query<{ n: number }>(
            'select count(*)::int as n from ws_leases where client_key = $1',
            [key],
          );
          if ((rows[0]?.n ?? 0) >= max) return false;
          await tx.query(
            'insert into ws_leases (id, client_key, expires_at) values ($1, $2, now() + make_interval(secs => $3))',
            [id, key, LEASE_SECONDS],
          );
          return true;
        });
      } catch {
        return (local.get(key) ?? 0) >= max ? refused : localLease(key);
      }
      if (!granted) return refused;
      held.add(id);
      let done = false;
      return {
        release() {
          if (done) return;
          done = true;
          held.delete(id);
          const gone: Promise<unknown> = db
            .query('delete from ws_leases where id = $1', [id])
            .catch(() => {}) // else it lapses
            .finally(() => releasing.delete(gone));
          releasing.add(gone);
        },
      };
    },
    async close() {
      clearInterval(renew);
      const ids = [...held];
      held.clear();
      if (ids.length > 0) await db.query('delete from ws_leases where id = any($1)', [ids]).catch(() => {});
    },
  };
}
