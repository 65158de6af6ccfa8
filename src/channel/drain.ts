/**
 * The /ws side of a graceful shutdown (docs/deploy.md, "Shutting down"). Once draining, no new
 * work starts: new connections are refused (503, so a balancer hands them to another instance)
 * and a `scan` or `unsubscribe` on an open connection is answered SERVICE_RESTARTING. Scans and
 * unsubscribe batches already running get until the deadline to finish; each reports as it
 * always does (every subscription, the outcome, one result per id). Past the deadline they are
 * stopped — a scan then reports `done` with `cancelled`, a batch reports every id it did not
 * get to as not sent — and given a short grace to say so. A connection is told
 * SERVICE_RESTARTING and closed with 1012 (RFC 6455 §7.4.1 via the IANA registry: service
 * restart) as soon as its session has nothing running, so nothing it did goes unreported.
 */
import type { ScanSession } from './session.ts';
import type { SessionStore } from './session-store.ts';

/** One open /ws connection as the drain sees it. */
export interface LiveConnection {
  /** the session it drives now (resume can change it) */
  session(): ScanSession;
  /** tells the client SERVICE_RESTARTING and closes with 1012; idempotent */
  restart(): void;
}

export interface LiveConnections {
  readonly draining: boolean;
  /** registers a connection */
  add(c: LiveConnection): { remove(): void; restart(): void };
  readonly size: number;
  drain(deadlineMs: number): Promise<DrainReport>;
}

export interface DrainReport {
  /** scans and batches running when the drain began */
  running: number;
  /** of those, stopped at the deadline */
  stopped: number;
  /** connections told to reconnect */
  connections: number;
  ms: number;
}

/** what the person is told with a stopped batch's unsent ids (unsubscribe results' detail) */
export const DRAIN_REASON = 'Not sent: the server was restarting. Nothing was sent for this one; try it again.';
/**
 * After the deadline, how long stopped work has to report what it did: a one-click request or
 * an unsubscribe email already under way finishes within its own timeout (10 s and 30 s,
 * src/unsubscribe/), and its result is reported, never cut off unreported.
 */
export const STOP_GRACE_MS = 30_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/**
 * `stores`: every place scan sessions run — the /ws sessions, and the agents' hand-offs
 * (src/handoff/), whose scans and batches get the same deadline though no /ws connection shows them.
 */
export function createLiveConnections(stores: Pick<SessionStore, 'busy'>[]): LiveConnections {
  const live = new Set<LiveConnection>();
  let draining = false;
  let told = 0;

  const restart = (c: LiveConnection) => {
    if (!live.has(c)) return;
    live.delete(c);
    told++;
    c.restart();
  };
  /** every connection whose session has nothing running is told now */
  const restartIdle = () => {
    for (const c of [...live]) if (!c.session().running) restart(c);
  };

  return {
    get draining() {
      return draining;
    },
    get size() {
      return live.size;
    },
    add(c) {
      live.add(c);
      return { remove: () => void live.delete(c), restart: () => restart(c) };
    },
    async drain(deadlineMs) {
      const started = Date.now();
      draining = true;
      const busy = stores.flatMap((s) => s.busy());
      restartIdle();
      // each busy session's connection is told the moment its work ends
      const settled = Promise.all(busy.map((s) => s.settled().then(restartIdle)));
      const inTime = await Promise.race([settled.then(() => true), sleep(deadlineMs).then(() => false)]);
      let stopped = 0;
      if (!inTime) {
        for (const s of busy) {
          if (!s.running) continue;
          stopped++;
          s.stop(DRAIN_REASON);
        }
        await Promise.race([settled, sleep(STOP_GRACE_MS)]);
      }
      for (const c of [...live]) restart(c);
      return { running: busy.length, stopped, connections: told, ms: Date.now() - started };
    },
  };
}
