/**
 * One /ws connection: validates each message, runs at most one scan at a time, and keeps
 * the last scan's results and credentials in memory — only for this connection, only
 * until it closes — so an `unsubscribe` can act on them. Errors are messages; the
 * connection stays usable after any recoverable one.
 */
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Catalog } from '../catalog/load.ts';
import type { ImapCredentials } from '../mailbox/imap-connect.ts';
import { type Endpoint, presetFor } from '../mailbox/providers.ts';
import { runScan, type ScanUidIndex } from '../mailbox/scan.ts';
import type { OutboundGuard } from '../outbound/guard.ts';
import type { ScanQuota } from '../quota/scan-quota.ts';
import {
  ClientMessage,
  describeIssues,
  PROTOCOL_VERSION,
  type ScanMessage,
  type ServerMessage,
  type Subscription,
  type WsErrorCode,
} from './protocol.ts';
import { serviceMatcher } from './service-match.ts';
import { handleUnsubscribe } from './unsubscribe-handler.ts';
import { markVerification, summarizeVerification } from './verification.ts';

export interface ChannelDeps {
  catalog: Catalog;
  guard: OutboundGuard;
  quota: ScanQuota;
  logger: Logger;
  scanTimeoutMs: number;
  batchSize: number;
}

/** What an unsubscribe needs from the last scan, held in memory only. */
export interface LastScan {
  email: string;
  creds: ImapCredentials;
  imap: Endpoint;
  smtp: Endpoint | null;
  subscriptions: Map<string, Subscription>;
  uids: ScanUidIndex;
}

/** The only way out of a session: the compiler refuses anything that is not a server message. */
export type Send = (msg: ServerMessage) => void;

export function createSession(deps: ChannelDeps, send: Send) {
  const matchService = serviceMatcher(deps.catalog);
  let scanning: AbortController | null = null;
  let last: LastScan | null = null;
  let closed = false;

  const error = (code: WsErrorCode, message: string, extra: { resets_at?: string } = {}) =>
    send({ type: 'error', code, message, ...extra });
  const quotaExceeded = (resets_at: string) =>
    error('SCAN_QUOTA_EXCEEDED', `No scans left today for this mailbox; the allowance resets at ${resets_at}.`, {
      resets_at,
    });

  async function scan(m: ScanMessage) {
    // Claim the connection before the first await: a second scan message arriving during
    // the quota look-up must see it busy.
    const controller = new AbortController();
    scanning = controller;
    try {
      await scanOnce(m, controller);
    } finally {
      scanning = null;
    }
  }

  async function scanOnce(m: ScanMessage, controller: AbortController) {
    const preset = presetFor(m.provider);
    if (m.oauth_session || preset?.auth === 'oauth') {
      error('INVALID_MESSAGE', 'scan.provider: sign-in with an OAuth session is not available for this provider');
      return;
    }
    const imap: Endpoint = preset ? preset.imap : { host: m.host!, port: m.port!, tls: m.tls! };
    const smtp: Endpoint | null = preset ? preset.smtp : (m.smtp ?? null);
    const before = await deps.quota.status(m.email);
    if (before.scans_left <= 0) {
      quotaExceeded(before.resets_at);
      return;
    }
    const creds: ImapCredentials = { user: m.email, password: m.password };
    const subs = new Map<string, Subscription>();
    const previous = m.previous_unsubscribes ?? [];
    let refusedUntil: string | null = null;
    const result = await runScan(
      imap,
      creds,
      deps.guard,
      {
        mailboxes: m.mailboxes,
        since: m.since ? new Date(m.since) : undefined,
        signal: controller.signal,
        matchService,
        timeoutMs: deps.scanTimeoutMs,
        batchSize: deps.batchSize,
      },
      {
        progress: (p) => send({ type: 'progress', ...p }),
        subscription: (s) => {
          const marked = markVerification(s, previous);
          subs.set(s.id, marked);
          send({ type: 'subscription', subscription: marked });
        },
        started: async () => {
          const taken = await deps.quota.take(m.email);
          if (!taken.ok) {
            refusedUntil = taken.resets_at;
            return false;
          }
          send({ type: 'quota', email: m.email, scans_left: taken.scans_left, resets_at: taken.resets_at });
          return true;
        },
      },
    );
    if (closed) return;
    if (!result.ok) {
      deps.logger.info({ code: result.code }, 'scan ended with an error');
      if (result.code === 'REFUSED') quotaExceeded(refusedUntil ?? before.resets_at);
      else error(result.code, result.message);
      return;
    }
    last = { email: m.email, creds, imap, smtp, subscriptions: subs, uids: result.uids };
    deps.logger.info({ scanned: result.scanned, subscriptions: subs.size, cancelled: result.cancelled }, 'scan done');
    send({
      type: 'done',
      scanned: result.scanned,
      subscriptions: subs.size,
      duration_ms: result.durationMs,
      cancelled: result.cancelled,
      verification: summarizeVerification(previous, subs),
    });
  }

  return {
    hello() {
      send({ type: 'ready', protocol: PROTOCOL_VERSION, daily_limit: deps.quota.limit });
    },
    get busy() {
      return scanning !== null;
    },
    get lastScan() {
      return last;
    },
    async handle(raw: string) {
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        error('INVALID_MESSAGE', 'message: not valid JSON');
        return;
      }
      const parsed = ClientMessage.safeParse(json);
      if (!parsed.success) {
        error('INVALID_MESSAGE', describeIssues(parsed.error));
        return;
      }
      const m = parsed.data;
      if (m.type === 'quota') {
        const s = await deps.quota.status(m.email);
        send({ type: 'quota', email: m.email, ...s });
      } else if (m.type === 'cancel') {
        if (scanning) scanning.abort();
        else error('INVALID_MESSAGE', 'cancel: no scan is running');
      } else if (scanning) {
        error('BUSY', 'A scan or unsubscribe is already running on this connection; wait for it or send cancel.');
      } else if (m.type === 'scan') {
        await scan(m);
      } else if (!last) {
        error('INVALID_MESSAGE', 'unsubscribe: scan first; unsubscribing acts on this connection’s last scan');
      } else {
        const controller = new AbortController();
        scanning = controller;
        try {
          await handleUnsubscribe(m, last, deps.guard, send, controller.signal);
        } finally {
          scanning = null;
        }
      }
    },
    close() {
      closed = true;
      scanning?.abort();
      // Drop the credentials and results with the connection.
      last = null;
    },
  };
}
