/**
 * The header-only scan, independent of any transport (a scan session drives it). It reads
 * only the header fields it needs (BODY.PEEK on a read-only mailbox, so nothing is marked
 * read, RFC 3501 §6.4.5) and the \Seen flag, and keeps nothing per message (scan-tally.ts).
 *
 * The steps: open the two connections (scan-connections.ts) → list and pick the folders
 * (mailboxes.ts) → the `started` hook (the scan counts from here) → read each folder
 * (scan-read.ts) → the result. The lean reader costs a fraction of imapflow's CPU per message
 * (bench/scan, docs/benchmarks.md); the FETCH goes in batches of about `batchSize` messages,
 * at most 8 commands in flight (fetch-reader.ts).
 */
import type { OutboundGuard } from '../outbound/guard.ts';
import {
  DEFAULT_IMAP_TIMEOUTS,
  describeImapError,
  type ImapCredentials,
  type ImapFailureCode,
  type ImapTimeouts,
} from './imap-connect.ts';
import { resolveMailboxes } from './mailboxes.ts';
import type { Endpoint } from './providers.ts';
import { type CapHit, DEFAULT_SCAN_CAPS, type ScanCaps } from './scan-caps.ts';
import { openScanConnections, type ScanConnections } from './scan-connections.ts';
import { type ReadOutcome, readMailbox } from './scan-read.ts';
import { createTally, type Tally } from './scan-tally.ts';
import type { ServiceMatch, Subscription } from './types.ts';

export { HEADER_FIELDS } from './scan-read.ts';

export type ScanPhase = 'connecting' | 'listing' | 'searching' | 'fetching' | 'finishing';

export interface ScanProgress {
  phase: ScanPhase;
  done: number;
  total: number;
  /** the folder being read */
  mailbox?: string;
}

export interface ScanHooks {
  progress(p: ScanProgress): void;
  subscription(s: Subscription): void;
  /**
   * Called once the sign-in worked and the folders exist, before any mail is read: the
   * moment a scan starts to count against the daily allowance. false ends the scan (REFUSED).
   */
  started(): Promise<boolean>;
}

export interface ScanOptions {
  /** folder paths or roles (mailboxes.ts); default: the default folders */
  mailboxes?: string[];
  since?: Date;
  signal?: AbortSignal;
  matchService: (domain: string) => ServiceMatch | null;
  batchSize?: number;
  progressMs?: number;
  timeoutMs?: number;
  imapTimeouts?: ImapTimeouts;
  /** false: fetch through imapflow only (for comparison; default true) */
  leanFetch?: boolean;
  /** false: the lean connection fetches every message without searching first (search-first.ts; default true) */
  searchFirst?: boolean;
  /** messages per searched window (search-first.ts SEARCH_WINDOW) */
  searchWindow?: number;
  /** bounds on the scan's work (scan-caps.ts); default DEFAULT_SCAN_CAPS */
  caps?: ScanCaps;
  /** list_key → when the person unsubscribed from it earlier (ms); grouping.ts counts mail since */
  unsubscribedAt?: ReadonlyMap<string, number>;
}

export interface ScanUidIndex {
  /** subscription id → mailbox → UIDs (numbers only: enough to archive, nothing personal) */
  bySubscription: Map<string, Map<string, number[]>>;
  /** mailbox → UIDVALIDITY when it was read */
  uidValidity: Map<string, bigint>;
}

export type ScanResult =
  | {
      ok: true;
      scanned: number;
      subscriptions: Subscription[];
      /** every folder read, with the messages read in it */
      mailboxes: { path: string; messages: number }[];
      durationMs: number;
      cancelled: boolean;
      uids: ScanUidIndex;
      /** how the headers were read: 'lean' when every folder went through the lean connection */
      reader: 'lean' | 'imapflow';
      /** the caps this scan reached (scan-caps.ts); empty when none */
      capped: CapHit[];
    }
  | { ok: false; code: ScanFailureCode; message: string; authenticated: boolean };

/** Why a scan ended without a result; REFUSED: the `started` hook said no. */
export type ScanFailureCode = ImapFailureCode | 'MAILBOX_NOT_FOUND' | 'SCAN_FAILED' | 'REFUSED';

type Failure = Extract<ScanResult, { ok: false }>;
const TIMED_OUT: Failure = {
  ok: false,
  code: 'TIMEOUT',
  message: 'The scan took too long and was stopped.',
  authenticated: true,
};

export async function runScan(
  endpoint: Endpoint,
  creds: ImapCredentials,
  guard: OutboundGuard,
  opts: ScanOptions,
  hooks: ScanHooks,
): Promise<ScanResult> {
  const started = Date.now();
  const clock = startClock(opts.signal, opts.timeoutMs ?? 15 * 60_000);
  hooks.progress({ phase: 'connecting', done: 0, total: 0 });
  const opened = await openScanConnections(endpoint, creds, guard, {
    timeouts: opts.imapTimeouts ?? DEFAULT_IMAP_TIMEOUTS,
    signal: clock.signal,
    lean: opts.leanFetch !== false,
  });
  if (!opened.ok) {
    clock.stop();
    return { ...opened, authenticated: false };
  }
  const conns = opened.conns;
  let tally: Tally | null = null;
  try {
    hooks.progress({ phase: 'listing', done: 0, total: 0 });
    const picked = await resolveMailboxes(conns.client, opts.mailboxes);
    if (!picked.ok) return notFound(picked);
    if (!(await hooks.started()))
      return { ok: false, code: 'REFUSED', message: 'The scan was not started.', authenticated: true };
    tally = createTally(
      {
        matchService: opts.matchService,
        progressMs: opts.progressMs ?? 250,
        dedupe: picked.mailboxes.length > 1,
        caps: opts.caps ?? DEFAULT_SCAN_CAPS,
        unsubscribedAt: opts.unsubscribedAt,
      },
      hooks,
    );
    const reader = await readAll(picked.mailboxes, conns, tally, opts, clock.signal);
    if (clock.timedOut) return TIMED_OUT;
    tally.report('finishing');
    return {
      ok: true,
      scanned: tally.scanned,
      subscriptions: tally.subscriptions(),
      mailboxes: tally.mailboxes,
      durationMs: Date.now() - started,
      cancelled: clock.signal.aborted,
      uids: tally.uids,
      reader,
      capped: tally.capped(),
    };
  } catch (err) {
    return clock.timedOut ? TIMED_OUT : lostDuringScan(err, endpoint);
  } finally {
    tally?.stop();
    clock.stop();
    conns.close();
  }
}

/** Reads the folders in order until done or stopped; who read them all. */
async function readAll(
  boxes: { path: string; junk: boolean }[],
  conns: ScanConnections,
  tally: Tally,
  opts: ScanOptions,
  signal: AbortSignal,
): Promise<'lean' | 'imapflow'> {
  const lean = await conns.lean;
  const ctx = {
    client: conns.client,
    lean,
    tally,
    since: opts.since,
    batchSize: opts.batchSize ?? 500,
    signal,
    caps: opts.caps ?? DEFAULT_SCAN_CAPS,
    searchFirst: opts.searchFirst,
    searchWindow: opts.searchWindow,
  };
  let allLean = lean !== null;
  for (const box of boxes) {
    if (signal.aborted) break;
    const how: ReadOutcome = await readMailbox(box, ctx);
    // the folder's changed subscriptions go out now; within it, at most every progressMs
    ctx.tally.flush(true);
    if (how === 'imapflow') allLean = false;
    if (how === 'aborted') break;
  }
  return allLean ? 'lean' : 'imapflow';
}

/** The caller's cancel and the scan's own deadline, as one signal. */
function startClock(cancel: AbortSignal | undefined, timeoutMs: number) {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  cancel?.addEventListener('abort', onAbort, { once: true });
  const clock = { signal: stop.signal, timedOut: false, stop: () => {} };
  const deadline = setTimeout(() => {
    clock.timedOut = true;
    stop.abort();
  }, timeoutMs);
  clock.stop = () => {
    clearTimeout(deadline);
    cancel?.removeEventListener('abort', onAbort);
  };
  return clock;
}

function notFound(r: { missing: string[]; available: string[] }): Failure {
  return {
    ok: false,
    code: 'MAILBOX_NOT_FOUND',
    message: `No folder named ${r.missing.join(', ')}. Folders: ${r.available.join(', ')}`,
    authenticated: true,
  };
}

function lostDuringScan(err: unknown, endpoint: Endpoint): Failure {
  const d = describeImapError(err, `${endpoint.host}:${endpoint.port}`);
  return d.code === 'AUTH_FAILED'
    ? { ok: false, code: 'AUTH_FAILED', message: d.message, authenticated: true }
    : {
        ok: false,
        code: 'SCAN_FAILED',
        message: 'The connection to the mail server was lost during the scan. Please try again.',
        authenticated: true,
      };
}
