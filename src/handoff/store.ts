/**
 * Scan hand-offs: how an agent gets a mailbox scanned without ever holding the mailbox's
 * secret (docs/agents.md, "Scanning a mailbox for an agent"). `scan_inbox` opens a hand-off
 * for one address; the person opens its connect URL in a browser and signs in there; the scan
 * then runs here with the same engine as /ws (a transport-free scan session,
 * src/channel/session.ts), and the agent reads the progress and the results by `scan_id`.
 *
 * A hand-off lives in this process's memory only, for `lifetimeMs` (15 minutes) from its
 * creation whatever happens; then its scan session ends and the password, the results and the
 * hand-off itself are wiped. It belongs to the agent registration that opened it: another
 * registration's `scan_id` is unknown here. `scan_id` and the connect token are 256 random
 * bits each, never derived from the address, never logged.
 */
import { randomBytes } from 'node:crypto';
import type { ScanMessage, ServerMessage } from '../channel/protocol.ts';
import type { Client } from '../channel/scan-command.ts';
import type { ScanSession, SessionDeps, SessionOwner } from '../channel/session.ts';
import { createSessionStore } from '../channel/session-store.ts';
import type { Endpoint } from '../mailbox/providers.ts';
import type { OAuthAccount } from '../oauth/account.ts';

export interface HandoffSettings {
  /** from scan_inbox to the wipe */
  lifetimeMs: number;
  /** live hand-offs one registration may hold */
  maxPerAgent: number;
  /** sign-ins the person may try on one hand-off (each one reaches the mail server) */
  maxSignIns: number;
  /** how long the connect page waits for the mail server's verdict on a password */
  signInWaitMs: number;
  /** how long batch_unsubscribe waits for its batch before answering with what is done so far */
  batchWaitMs: number;
}

export const DEFAULT_HANDOFF_SETTINGS: HandoffSettings = {
  lifetimeMs: 15 * 60_000,
  maxPerAgent: 5,
  maxSignIns: 5,
  signInWaitMs: 20_000,
  // under the 60 s an MCP client waits for a result by default
  batchWaitMs: 45_000,
};

export interface HandoffRequest {
  registrationId: string;
  email: string;
  provider: string;
  /** custom provider only: where the mail servers are (not secrets) */
  imap?: Endpoint;
  smtp?: Endpoint;
  since?: string;
}

export type HandoffStatus = 'awaiting_user' | 'scanning' | 'done' | 'failed';

export interface ScanFailure {
  code: string;
  message: string;
  resets_at?: string;
  /** an attempt limit's wait, in seconds */
  retry_after?: number;
}

export interface DevicePair {
  verification_uri: string;
  verification_uri_complete?: string;
  user_code: string;
  interval: number;
}

export interface Batch {
  running: boolean;
  dryRun: boolean;
  results: Map<string, Extract<ServerMessage, { type: 'unsubscribe_result' }>>;
  done: Extract<ServerMessage, { type: 'unsubscribe_done' }> | null;
}

export interface Handoff {
  readonly scanId: string;
  readonly connectToken: string;
  readonly request: HandoffRequest;
  readonly expiresAt: Date;
  readonly session: ScanSession;
  status: HandoffStatus;
  error: ScanFailure | null;
  progress: Extract<ServerMessage, { type: 'progress' }> | null;
  /** messages read and folders, once done */
  done: Extract<ServerMessage, { type: 'done' }> | null;
  signIns: number;
  batch: Batch | null;
  /** the device-code pair the person needs, while a device sign-in waits for them */
  device: DevicePair | null;
  /** a sign-in that is not a password (the device-code flow), stopped when the hand-off ends */
  signInFlow: { cancel(): void } | null;
  /** the Microsoft account the scan signed in with (device.ts); forgotten when the hand-off ends */
  account: OAuthAccount | null;
  /** resolves at the next verdict on a sign-in: scanning under way, failed, or done */
  nextVerdict(): Promise<void>;
  /**
   * Also hands every message of the hand-off's scan session to `listener` (e.g. a tool that
   * asks the session for something and awaits its answer); returns the way to stop.
   */
  watch(listener: (msg: ServerMessage) => void): () => void;
}

export type CreateResult = { ok: true; handoff: Handoff } | { ok: false; code: 'too_many_handoffs' };

export interface HandoffStore {
  readonly settings: HandoffSettings;
  create(req: HandoffRequest): CreateResult;
  /** the registration's live hand-off with this id, else null */
  get(scanId: string, registrationId: string): Handoff | null;
  byConnectToken(token: string): Handoff | null;
  /** starts the scan with the password the person typed; resolves once the server decided, or after signInWaitMs */
  /** `client`: the person who posted the password, for the attempt limits (src/limits/) */
  signInWithPassword(h: Handoff, password: string, client: Client): Promise<void>;
  /** starts the scan with another sign-in (a ScanMessage without a password and the OAuth account) */
  startScan(h: Handoff, m: ScanMessage, client: Client, account?: OAuthAccount | null): Promise<void>;
  /** the registration's newest live hand-off of `email` whose scan is done (for work on its results) */
  latestDone(registrationId: string, email: string): Handoff | null;
  /** ends the hand-off now: the scan stops, everything is wiped */
  forget(h: Handoff): void;
  readonly size: number;
  /** the hand-offs' sessions running a scan or a batch now (a graceful shutdown waits for them) */
  busy(): ScanSession[];
  close(): void;
}

export function createHandoffStore(deps: SessionDeps, settings: HandoffSettings): HandoffStore {
  // The hand-off's scan session ends when the hand-off does: both at lifetimeMs.
  const sessions = createSessionStore(deps, { lifetimeMs: settings.lifetimeMs, keepMs: settings.lifetimeMs });
  const byId = new Map<string, Handoff>();
  const byToken = new Map<string, Handoff>();

  function remove(h: Handoff) {
    byId.delete(h.scanId);
    byToken.delete(h.connectToken);
    h.signInFlow?.cancel();
    h.signInFlow = null;
    // tokens obtained for this scan only: the refresh token is revoked where the provider can
    void h.account?.forget(true);
    h.account = null;
    h.batch = null;
    h.progress = null;
  }

  function scanMessage(h: Handoff, password: string): ScanMessage {
    const r = h.request;
    return {
      type: 'scan',
      provider: r.provider as ScanMessage['provider'],
      email: r.email,
      password,
      ...(r.imap ? { host: r.imap.host, port: r.imap.port, tls: r.imap.tls } : {}),
      ...(r.smtp ? { smtp: r.smtp } : {}),
      ...(r.since ? { since: r.since } : {}),
    };
  }

  return {
    settings,
    create(req) {
      const mine = [...byId.values()].filter((h) => h.request.registrationId === req.registrationId);
      if (mine.length >= settings.maxPerAgent) return { ok: false, code: 'too_many_handoffs' };
      const session = sessions.open();
      const waiters: (() => void)[] = [];
      const watchers = new Set<(msg: ServerMessage) => void>();
      const h: Handoff = {
        scanId: `scn_${randomBytes(32).toString('base64url')}`,
        connectToken: `hoc_${randomBytes(32).toString('base64url')}`,
        request: req,
        // the session's own hard limit: the two end together
        expiresAt: session.expiresAt,
        session,
        status: 'awaiting_user',
        error: null,
        progress: null,
        done: null,
        signIns: 0,
        batch: null,
        device: null,
        signInFlow: null,
        account: null,
        nextVerdict: () => new Promise<void>((resolve) => waiters.push(resolve)),
        watch(listener) {
          watchers.add(listener);
          return () => watchers.delete(listener);
        },
      };
      const settle = () => {
        for (const w of waiters.splice(0)) w();
      };
      const owner: SessionOwner = {
        send(msg) {
          switch (msg.type) {
            case 'quota': // taken once the sign-in worked and the folders exist (scan-command.ts)
              h.status = 'scanning';
              settle();
              break;
            case 'progress':
              h.progress = msg;
              break;
            case 'done':
              h.status = 'done';
              h.done = msg;
              h.progress = null;
              settle();
              break;
            case 'error':
              if (h.batch?.running) break; // a batch's failures come as results
              h.status = 'failed';
              h.progress = null;
              h.error = {
                code: msg.code,
                message: msg.message,
                ...(msg.resets_at ? { resets_at: msg.resets_at } : {}),
                ...(msg.retry_after !== undefined ? { retry_after: msg.retry_after } : {}),
              };
              settle();
              break;
            case 'unsubscribe_result':
              h.batch?.results.set(msg.id, msg);
              break;
            case 'unsubscribe_done':
              if (h.batch) {
                h.batch.done = msg;
                h.batch.running = false;
              }
              break;
          }
          for (const w of watchers) w(msg);
        },
        ended: () => remove(h),
        replaced: () => {},
      };
      session.attach(owner);
      byId.set(h.scanId, h);
      byToken.set(h.connectToken, h);
      return { ok: true, handoff: h };
    },
    get(scanId, registrationId) {
      const h = byId.get(scanId);
      return h && h.request.registrationId === registrationId && !h.session.ended ? h : null;
    },
    byConnectToken(token) {
      const h = byToken.get(token);
      return h && !h.session.ended ? h : null;
    },
    async signInWithPassword(h, password, client) {
      h.signIns++;
      await this.startScan(h, scanMessage(h, password), client);
    },
    async startScan(h, m, client, account = null) {
      h.status = 'scanning';
      h.error = null;
      h.done = null;
      h.batch = null;
      const verdict = h.nextVerdict();
      const finished = h.session.scan(m, account, client);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        verdict,
        finished,
        new Promise<void>((r) => {
          timer = setTimeout(r, settings.signInWaitMs);
        }),
      ]);
      clearTimeout(timer);
    },
    latestDone(registrationId, email) {
      const wanted = email.toLowerCase();
      const found = [...byId.values()].filter(
        (h) =>
          h.request.registrationId === registrationId &&
          h.request.email.toLowerCase() === wanted &&
          h.session.lastScan !== null &&
          !h.session.ended,
      );
      return found.at(-1) ?? null;
    },
    forget(h) {
      remove(h);
      h.session.end('closed');
    },
    get size() {
      return byId.size;
    },
    busy: () => sessions.busy(),
    close() {
      for (const h of [...byId.values()]) this.forget(h);
      sessions.close();
    },
  };
}
