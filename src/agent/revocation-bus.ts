/**
 * Carries revocation notices to every open event stream, on whichever instance it is.
 * On PostgreSQL: NOTIFY on one channel and a dedicated LISTEN connection per instance, so a
 * revocation on one instance reaches a stream held by another at once. On the embedded
 * database one process owns the data directory, so an in-process fan-out is complete.
 * A notice can still be missed (the LISTEN connection dropped, NOTIFY failed after the
 * commit): each stream also re-checks its credential on every heartbeat, and after the
 * listener reconnects (onResync), which bounds the delay by the heartbeat interval.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../storage/index.ts';

export interface RevocationNotice {
  /** the SET's `jti`, the same on every instance */
  jti: string;
  /** seconds since the epoch */
  iat: number;
  registration_id: string;
  credential_type: 'api_key' | 'access_token' | null;
  credential_hint: string | null;
  reason: 'revoked_by_agent' | 'expired';
  revoked_at: string;
}

type Listener = (n: RevocationNotice) => void;

export interface RevocationBus {
  readonly kind: 'in-process' | 'postgres-notify';
  publish(n: RevocationNotice): Promise<void>;
  /** resolves once notices for the registration will reach `fn`; returns the unsubscribe */
  subscribe(registrationId: string, fn: Listener): Promise<() => void>;
  /** `fn` runs when notices may have been missed (the listener reconnected) */
  onResync(fn: () => void): () => void;
  close(): Promise<void>;
}

const CHANNEL = 'optout_agent_revocations';

export function createRevocationBus(db: Db, logger: Logger): RevocationBus {
  const subs = new Map<string, Set<Listener>>();
  const resync = new Set<() => void>();
  const dispatch = (n: RevocationNotice) => {
    for (const fn of subs.get(n.registration_id) ?? []) fn(n);
  };
  const add = (id: string, fn: Listener) => {
    const set = subs.get(id) ?? new Set<Listener>();
    subs.set(id, set);
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0 && subs.get(id) === set) subs.delete(id);
    };
  };
  const onResync = (fn: () => void) => {
    resync.add(fn);
    return () => void resync.delete(fn);
  };

  if (!db.url) {
    return {
      kind: 'in-process',
      async publish(n) {
        queueMicrotask(() => dispatch(n));
      },
      async subscribe(id, fn) {
        return add(id, fn);
      },
      onResync,
      async close() {
        subs.clear();
      },
    };
  }

  const url = db.url;
  let client: pg.Client | null = null;
  let connecting: Promise<void> | null = null;
  let retryTimer: NodeJS.Timeout | undefined;
  let retryMs = 500;
  let closed = false;

  async function connect(): Promise<void> {
    // pg loads only where there is PostgreSQL to listen to (the embedded default has one process)
    const { default: Pg } = await import('pg');
    const c = new Pg.Client({ connectionString: url });
    c.on('notification', (msg) => {
      if (msg.channel !== CHANNEL || !msg.payload) return;
      try {
        dispatch(JSON.parse(msg.payload) as RevocationNotice);
      } catch (err) {
        logger.error({ err }, 'unreadable revocation notice');
      }
    });
    const lost = () => {
      if (client !== c) return;
      client = null;
      c.end().catch(() => {});
      if (!closed) scheduleReconnect();
    };
    c.on('error', lost);
    c.on('end', lost);
    try {
      await c.connect();
      await c.query(`listen ${CHANNEL}`);
    } catch (err) {
      c.end().catch(() => {});
      throw err;
    }
    if (closed) {
      await c.end();
      return;
    }
    client = c;
    retryMs = 500;
  }

  function scheduleReconnect() {
    clearTimeout(retryTimer);
    retryTimer = setTimeout(() => {
      connecting = connect()
        .then(() => {
          for (const fn of resync) fn();
        })
        .catch((err) => {
          logger.warn({ err: String(err) }, 'revocation listener: reconnect failed; streams fall back to polling');
          retryMs = Math.min(retryMs * 2, 30_000);
          scheduleReconnect();
        })
        .finally(() => {
          connecting = null;
        });
    }, retryMs);
    retryTimer.unref();
  }

  async function ensureListening() {
    if (client || closed) return;
    connecting ??= connect().finally(() => {
      connecting = null;
    });
    try {
      await connecting;
    } catch (err) {
      // The stream still works (heartbeat checks); keep trying in the background.
      logger.warn({ err: String(err) }, 'revocation listener: could not connect; streams fall back to polling');
      if (!retryTimer || !connecting) scheduleReconnect();
    }
  }

  return {
    kind: 'postgres-notify',
    async publish(n) {
      // NOTIFY is delivered after the surrounding transaction commits (we are outside one),
      // to every listening session, this instance's own included.
      await db.query('select pg_notify($1, $2)', [CHANNEL, JSON.stringify(n)]);
    },
    async subscribe(id, fn) {
      const off = add(id, fn);
      await ensureListening();
      return off;
    },
    onResync,
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      await connecting?.catch(() => {});
      const c = client;
      client = null;
      subs.clear();
      await c?.end().catch(() => {});
    },
  };
}
