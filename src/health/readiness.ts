/**
 * Whether this instance should be sent new work (`/readyz`, docs/deploy.md): it is not shutting
 * down, and its database answers `select 1` within `timeoutMs`. A check never waits longer than
 * that, whatever the database does; checks that arrive while one is running share it, so a
 * balancer polling hard, or a database that hangs, costs at most one connection at a time.
 * Changes of state are logged once each, not per check.
 */
import type { Logger } from 'pino';
import type { Db } from '../storage/index.ts';

export type ReadyState =
  | { ready: true; databaseMs: number }
  | { ready: false; reason: 'draining' | 'database_timeout' | 'database_error' };

export interface Readiness {
  /** SIGTERM: from now on every check says not ready (there is no way back) */
  drain(): void;
  readonly draining: boolean;
  check(): Promise<ReadyState>;
}

export const READY_TIMEOUT_MS = 1000;
/** a probe still running after this long is left to itself and a fresh one is started */
const STALE_PROBE_MS = 5000;

export function createReadiness(db: Pick<Db, 'query'>, logger: Logger, timeoutMs = READY_TIMEOUT_MS): Readiness {
  let draining = false;
  let probe: { at: number; result: Promise<ReadyState> } | null = null;
  let last: ReadyState['ready'] | 'draining' = true;

  function startProbe(): Promise<ReadyState> {
    const at = performance.now();
    const result = db.query('select 1').then(
      (): ReadyState => ({ ready: true, databaseMs: Math.round(performance.now() - at) }),
      (): ReadyState => ({ ready: false, reason: 'database_error' }),
    );
    const mine = { at, result };
    probe = mine;
    void result.finally(() => {
      if (probe === mine) probe = null;
    });
    return result;
  }

  function note(state: ReadyState) {
    const now = draining ? 'draining' : state.ready;
    if (now === last) return;
    last = now;
    if (state.ready) logger.info('ready: the database answers again');
    else if (state.reason !== 'draining')
      logger.warn({ reason: state.reason }, 'not ready: the database does not answer');
  }

  return {
    drain() {
      draining = true;
    },
    get draining() {
      return draining;
    },
    async check() {
      if (draining) return { ready: false, reason: 'draining' };
      const running = probe && performance.now() - probe.at < STALE_PROBE_MS ? probe.result : startProbe();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<ReadyState>((r) => {
        timer = setTimeout(() => r({ ready: false, reason: 'database_timeout' }), timeoutMs);
      });
      const state = await Promise.race([running, late]).finally(() => clearTimeout(timer));
      const out: ReadyState = draining ? { ready: false, reason: 'draining' } : state;
      note(out);
      return out;
    },
  };
}
