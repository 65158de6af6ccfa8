/**
 * The run-time state of every service (its latest link check) as one in-memory snapshot, so
 * the catalog API and the service pages answer without a query per request (on PGlite that
 * query cost more than the rest of the request together). The table holds at most one small
 * row per service.
 *
 * Freshness: the link-check worker of this process calls invalidate() after it records a
 * check, so its results show at once; anything else that writes service_state (a worker of
 * another instance on the same PostgreSQL) shows within `maxAgeMs`. A request that finds the
 * snapshot stale waits for one shared reload; it never gets an older snapshot than that.
 */
import type { Db } from '../storage/index.ts';
import { readLinkStates, readStates, type ServiceState } from './view.ts';

export interface StateSnapshot {
  get(slug: string): ServiceState | undefined;
}

export interface ServiceStates {
  /** the current snapshot, reloaded first when older than maxAgeMs or invalidated */
  snapshot(): Promise<StateSnapshot>;
  /**
   * The current snapshot when snapshot() would answer it without reading, else undefined: a
   * route answers synchronously in the common case and waits only when a reload is due.
   */
  fresh(): StateSnapshot | undefined;
  /** the next snapshot() reads the database again */
  invalidate(): void;
}

export const STATE_MAX_AGE_MS = 1000;

export function createServiceStates(db: Db, maxAgeMs = STATE_MAX_AGE_MS): ServiceStates {
  let current: { states: Map<string, ServiceState>; loadedAt: number } | null = null;
  let loading: Promise<Map<string, ServiceState>> | null = null;
  // The last snapshot read (kept across invalidate()), for identity reuse.
  let previous = new Map<string, ServiceState>();
  // Bumped by invalidate(): a reload that started before an invalidation does not count as fresh.
  let generation = 0;

  // link_state has a row per link (thousands): read again only when its size or newest check moved.
  let linkSignature = '';
  let linkStates: Awaited<ReturnType<typeof readLinkStates>> | undefined;
  const readAll = async () => {
    const sig = await db.query<{ n: number; newest: Date | string | null }>(
      'select count(*)::int as n, max(checked_at) as newest from link_state',
    );
    const signature = `${sig.rows[0]?.n}:${sig.rows[0]?.newest === null ? '' : new Date(sig.rows[0]?.newest ?? 0).getTime()}`;
    if (signature !== linkSignature || !linkStates) {
      linkStates = await readLinkStates(db);
      linkSignature = signature;
    }
    return readStates(db, linkStates);
  };

  const reload = () => {
    const started = { at: performance.now(), generation };
    loading ??= readAll()
      .then((read) => {
        // An unchanged state keeps its object, so callers can tell "unchanged" by identity
        // (the catalog routes reuse a response built for it); so does the whole snapshot when
        // nothing in it changed (the list route reuses whole pages built for it).
        let states = new Map<string, ServiceState>();
        let same = read.size === previous.size;
        for (const [slug, state] of read) {
          const prev = previous.get(slug);
          const kept = prev && sameState(prev, state) ? prev : state;
          if (kept !== prev) same = false;
          states.set(slug, kept);
        }
        if (same) states = previous;
        previous = states;
        if (started.generation === generation) current = { states, loadedAt: started.at };
        return states;
      })
      .finally(() => {
        loading = null;
      });
    return loading;
  };

  return {
    fresh() {
      return current && performance.now() - current.loadedAt < maxAgeMs ? current.states : undefined;
    },
    async snapshot() {
      if (current && performance.now() - current.loadedAt < maxAgeMs) return current.states;
      let states = await reload();
      // Invalidated while that read was running: it may predate the write, read once more.
      if (!current) states = await reload();
      return states;
    },
    invalidate() {
      generation++;
      current = null;
    },
  };
}

const sameState = (a: ServiceState, b: ServiceState) =>
  a.last_verified === b.last_verified &&
  (a.links === b.links || JSON.stringify(a.links) === JSON.stringify(b.links)) &&
  JSON.stringify(a.link_status) === JSON.stringify(b.link_status);
