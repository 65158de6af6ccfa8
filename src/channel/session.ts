/**
 * A scan session, independent of any transport: the /ws adapter (ws-connection.ts) drives
 * one through these methods, and nothing here knows about WebSockets.
 * It runs at most one scan, unsubscribe batch or audit at a time, keeps the last scan's results and
 * credentials in memory — never on disk, never in a log — and keeps a journal of what it
 * reported, so a connection that takes the session over gets every subscription, the scan's
 * outcome and every unsubscribe result again, once each. `end()` wipes all of it.
 */
import type { OAuthAccount } from '../oauth/account.ts';
import type { OutboundGuard } from '../outbound/guard.ts';
import type { ScanQuota } from '../quota/scan-quota.ts';
import { type AuditDeps, auditForSession } from './audit-command.ts';
import type {
  AuditResultMessage,
  DoneMessage,
  ErrorMessage,
  ProgressMessage,
  ScanMessage,
  ServerMessage,
  Subscription,
  UnsubscribeDoneMessage,
  UnsubscribeMessage,
  UnsubscribeResultMessage,
  WsErrorCode,
} from './protocol.ts';
import { type Client, type LastScan, limited, type ScanDeps, scanForSession } from './scan-command.ts';
import { handleUnsubscribe } from './unsubscribe-handler.ts';

export type { LastScan } from './scan-command.ts';
export type SessionDeps = ScanDeps & AuditDeps & { guard: OutboundGuard; quota: ScanQuota };

/** The only way out of a session: the compiler refuses anything that is not a server message. */
export type Send = (msg: ServerMessage) => void;

/** Whoever currently receives a session's messages (one /ws connection at a time). */
export interface SessionOwner {
  send: Send;
  /** the session ended while this owner held it (its hard limit) */
  ended(): void;
  /** another owner took the session over */
  replaced(): void;
}

export type Running = 'scan' | 'unsubscribe' | 'audit' | null;

export interface ScanSession {
  /** a secret: never logged, never in a URL */
  readonly id: string;
  /** the hard limit; the session ends then whatever happens */
  readonly expiresAt: Date;
  readonly running: Running;
  /** true while it holds something worth keeping for a connection that comes back */
  readonly holdsWork: boolean;
  readonly ended: boolean;
  /** whether an owner (a connection) receives its messages now */
  readonly attached: boolean;
  readonly lastScan: LastScan | null;
  /** Messages go to `owner` from now on; a previous owner is told it was replaced. */
  attach(owner: SessionOwner): void;
  /** true when `owner` held the session (it holds nobody now) */
  detach(owner: SessionOwner): boolean;
  /** What a new owner receives after taking the session over, each message once. */
  replay(): ServerMessage[];
  quota(email: string): Promise<void>;
  /**
   * `account`: the Microsoft sign-in of the connection that sent it (provider `outlook`);
   * `client`: who sent it, for the attempt limits (src/limits/)
   */
  scan(m: ScanMessage, account: OAuthAccount | null, client: Client): Promise<void>;
  unsubscribe(m: UnsubscribeMessage, client: Client): Promise<void>;
  /** The frequency and cost audit of the last scan: `progress` (phase audit), then `audit`. */
  audit(): Promise<void>;
  cancel(): void;
  /** Stops what runs, as `cancel` does but silently; `why` is the reason work not started reports. */
  stop(why: string): void;
  /** Resolves once nothing runs (at once when nothing does). */
  settled(): Promise<void>;
  /** Stops what runs and drops credentials, results and journal; idempotent. */
  end(why: 'expired' | 'lifetime' | 'closed'): void;
}

export function createScanSession(deps: SessionDeps, id: string, expiresAt: Date): ScanSession {
  let owner: SessionOwner | null = null;
  let running: Running = null;
  let work: AbortController | null = null;
  let last: LastScan | null = null;
  let ended = false;
  // The journal: the newest state of everything a returning connection must see.
  const subs = new Map<string, Subscription>();
  let progress: ProgressMessage | null = null;
  let outcome: DoneMessage | ErrorMessage | null = null;
  const results = new Map<string, UnsubscribeResultMessage>();
  let batchDone: UnsubscribeDoneMessage | null = null;
  // The last complete audit, for the scan it covers: asked again, it is sent again as it was.
  let audited: { of: LastScan; msg: AuditResultMessage } | null = null;
  const waiters: (() => void)[] = [];

  const toOwner = (msg: ServerMessage) => {
    if (!ended) owner?.send(msg);
  };
  const error = (code: WsErrorCode, message: string) => toOwner({ type: 'error', code, message });

  /** Everything the running work reports goes through here: noted, then sent. */
  function emit(msg: ServerMessage) {
    if (ended) return;
    if (msg.type === 'subscription') subs.set(msg.subscription.id, msg.subscription);
    else if (msg.type === 'progress') progress = msg;
    else if (msg.type === 'done' || (msg.type === 'error' && running === 'scan')) outcome = msg;
    else if (msg.type === 'unsubscribe_result') {
      results.delete(msg.id); // the newest result of an id goes last, as the person saw it
      results.set(msg.id, msg);
    } else if (msg.type === 'unsubscribe_done') batchDone = msg;
    else if (msg.type === 'audit' && last && !msg.cancelled) audited = { of: last, msg };
    toOwner(msg);
  }

  /** Claims the session before the first await, so a second command meanwhile sees it busy. */
  async function exclusive(kind: Exclude<Running, null>, job: (signal: AbortSignal) => Promise<void>) {
    if (running) {
      error('BUSY', 'A scan, unsubscribe or audit is already running in this session; wait for it or send cancel.');
      return;
    }
    const controller = new AbortController();
    running = kind;
    work = controller;
    try {
      await job(controller.signal);
    } finally {
      if (work === controller) {
        running = null;
        work = null;
        for (const w of waiters.splice(0)) w();
      }
      progress = null;
    }
  }

  return {
    id,
    expiresAt,
    get running() {
      return running;
    },
    get holdsWork() {
      return !ended && (running !== null || last !== null || outcome !== null);
    },
    get ended() {
      return ended;
    },
    get attached() {
      return owner !== null;
    },
    get lastScan() {
      return last;
    },
    attach(next) {
      const previous = owner;
      owner = next;
      if (previous && previous !== next) previous.replaced();
    },
    detach(o) {
      if (owner !== o) return false;
      owner = null;
      return true;
    },
    replay() {
      const out: ServerMessage[] = [...subs.values()].map((subscription) => ({ type: 'subscription', subscription }));
      if (running === 'scan' && progress) out.push(progress);
      if (outcome) out.push(outcome);
      out.push(...results.values());
      if (batchDone) out.push(batchDone);
      if (audited) out.push(audited.msg);
      if (running === 'audit' && progress) out.push(progress);
      return out;
    },
    async quota(email) {
      const s = await deps.quota.status(email);
      toOwner({ type: 'quota', email, ...s });
    },
    scan: (m, account, client) =>
      exclusive('scan', async (signal) => {
        // A new scan replaces the last one: its results, its credentials, its journal.
        last = null;
        subs.clear();
        outcome = null;
        results.clear();
        batchDone = null;
        audited = null;
        const result = await scanForSession(m, deps, signal, emit, account, client);
        if (!ended) last = result;
      }),
    unsubscribe(m, client) {
      const scanned = last;
      if (!scanned && !running) {
        error('INVALID_MESSAGE', 'unsubscribe: scan first; unsubscribing acts on this session’s last scan');
        return Promise.resolve();
      }
      return exclusive('unsubscribe', async (signal) => {
        batchDone = null;
        if (!m.dry_run) {
          // Every subscription acted on counts for the client (docs/security.md); a dry run sends nothing.
          const acting =
            new Set(m.ids).size - [...new Set(m.ids)].filter((id) => !scanned!.subscriptions.has(id)).length;
          const allowed = await deps.attempts.unsubscribe(client.ip, acting);
          if (!allowed.ok) {
            emit(
              limited(
                'TOO_MANY_UNSUBSCRIBES',
                allowed.retryAfter,
                'Your network has asked for more unsubscribes in the last hour than we send; nothing was sent.',
              ),
            );
            return;
          }
        }
        await handleUnsubscribe(m, scanned!, deps.guard, emit, signal);
      });
    },
    audit() {
      const scanned = last;
      if (!scanned) {
        error(
          'INVALID_MESSAGE',
          running === 'scan'
            ? 'audit: wait for the scan to finish; the audit covers the finished scan'
            : 'audit: scan first; the audit covers this session’s last scan',
        );
        return Promise.resolve();
      }
      return exclusive('audit', async (signal) => {
        if (audited?.of === scanned) {
          emit({ type: 'progress', phase: 'audit', done: 0, total: 0 });
          emit(audited.msg);
          return;
        }
        await auditForSession(scanned, deps, signal, emit);
      });
    },
    cancel() {
      if (work) work.abort();
      else error('INVALID_MESSAGE', 'cancel: nothing is running');
    },
    stop(why) {
      work?.abort(why);
    },
    settled() {
      return running ? new Promise<void>((r) => waiters.push(r)) : Promise.resolve();
    },
    end(why) {
      if (ended) return;
      const o = owner;
      ended = true;
      owner = null;
      work?.abort();
      for (const w of waiters.splice(0)) w();
      last = null;
      subs.clear();
      results.clear();
      outcome = progress = batchDone = null;
      audited = null;
      if (why === 'lifetime') o?.ended();
    },
  };
}
