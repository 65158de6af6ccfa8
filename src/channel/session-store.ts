/**
 * Every live scan session of the process, by its secret id. A session lives at most
 * `lifetimeMs` from its start; when the connection driving it goes away it is kept `keepMs`
 * more (if it holds anything) for a connection that resumes it, then ended: its credentials
 * and results are dropped from memory. Ids are 256 random bits (base64url), never derived
 * from the address, and never logged.
 */
import { randomBytes } from 'node:crypto';
import { createScanSession, type ScanSession, type SessionDeps } from './session.ts';

export interface SessionLimits {
  /** the hard limit of a session, from its start */
  lifetimeMs: number;
  /** how long a session outlives the connection that drove it */
  keepMs: number;
}

export interface SessionStore {
  /** A new session, not yet held by anyone. */
  open(): ScanSession;
  /** The live session with this id, or null (unknown, expired or ended). */
  find(id: string): ScanSession | null;
  /** Someone drives the session again: it is no longer waiting to expire. */
  claim(session: ScanSession): void;
  /** Nobody drives the session any more: kept `keepMs` when it holds work, else ended now. */
  release(session: ScanSession): void;
  readonly size: number;
  /** The sessions running a scan or an unsubscribe batch now, with a connection or without. */
  busy(): ScanSession[];
  /** Ends every session (shutdown). */
  close(): void;
}

interface Entry {
  session: ScanSession;
  lifetime: NodeJS.Timeout;
  keep: NodeJS.Timeout | null;
}

export function createSessionStore(deps: SessionDeps, limits: SessionLimits): SessionStore {
  const entries = new Map<string, Entry>();

  function end(id: string, why: 'expired' | 'lifetime' | 'closed') {
    const e = entries.get(id);
    if (!e) return;
    entries.delete(id);
    clearTimeout(e.lifetime);
    clearTimeout(e.keep ?? undefined);
    e.session.end(why);
  }

  return {
    open() {
      const id = randomBytes(32).toString('base64url');
      const session = createScanSession(deps, id, new Date(Date.now() + limits.lifetimeMs));
      const lifetime = setTimeout(() => end(id, 'lifetime'), limits.lifetimeMs);
      lifetime.unref();
      entries.set(id, { session, lifetime, keep: null });
      return session;
    },
    find(id) {
      const e = entries.get(id);
      return e && !e.session.ended ? e.session : null;
    },
    claim(session) {
      const e = entries.get(session.id);
      if (e?.keep) {
        clearTimeout(e.keep);
        e.keep = null;
      }
    },
    release(session) {
      const e = entries.get(session.id);
      if (!e) return;
      if (!session.holdsWork) {
        end(session.id, 'closed');
        return;
      }
      clearTimeout(e.keep ?? undefined);
      e.keep = setTimeout(
        () => end(session.id, 'expired'),
        Math.min(limits.keepMs, session.expiresAt.getTime() - Date.now()),
      );
      e.keep.unref();
    },
    get size() {
      return entries.size;
    },
    busy() {
      return [...entries.values()].map((e) => e.session).filter((s) => s.running !== null);
    },
    close() {
      for (const id of [...entries.keys()]) end(id, 'closed');
    },
  };
}
