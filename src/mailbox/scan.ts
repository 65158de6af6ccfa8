/**
 * The header-only inbox scan, independent of any transport (the /ws channel and the MCP
 * tools drive it). It reads only the header fields it needs (BODY.PEEK on a read-only
 * mailbox, so nothing is marked read) and the \Seen flag, and keeps nothing per message: each
 * message is folded into the grouping and dropped, so memory stays flat however large the
 * mailbox. The first subscription is reported as soon as it is found, then whichever changed,
 * at most every `progressMs` and at the end of each mailbox; progress at every phase and at least
 * every `progressMs`.
 *
 * Two connections at most. imapflow signs in (its answer is the one reported) and lists; the
 * header FETCH runs on a second, lean connection (lean-imap.ts, fetch-reader.ts) whose reader
 * costs a fraction of imapflow's CPU per message (bench/scan, docs/benchmarks.md). Its TLS
 * handshake overlaps imapflow's sign-in; it signs in only after imapflow did, so a wrong password
 * is tried once. Without `since`, its EXAMINE replaces imapflow's SELECT and SEARCH; with one,
 * imapflow searches and the lean connection fetches the UIDs found. The FETCH goes in batches
 * of about `batchSize` messages, at most 8 commands in flight (fetch-reader.ts). When the lean
 * connection cannot open, sign in or select, sees another UIDVALIDITY, or has its FETCH refused
 * before any message, imapflow selects, searches and fetches in UID batches as before: a scan
 * never depends on it. Only CPU work happens inside an imapflow FETCH loop: a second command there would
 * deadlock its single pipeline (postalsys/imapflow#159).
 */
import type { ImapFlow } from 'imapflow';
import type { OutboundGuard } from '../outbound/guard.ts';
import { fetchHeaders, type UidBatch } from './fetch-reader.ts';
import { createGrouper } from './grouping.ts';
import { createHeaderParser } from './headers.ts';
import {
  DEFAULT_IMAP_TIMEOUTS,
  describeImapError,
  type ImapCredentials,
  type ImapFailureCode,
  type ImapTimeouts,
  openImap,
} from './imap-connect.ts';
import { examine, signIn } from './lean-commands.ts';
import { connectLean, type LeanImap } from './lean-imap.ts';
import { type ResolvedMailbox, resolveMailboxes } from './mailboxes.ts';
import type { Endpoint } from './providers.ts';
import type { ServiceMatch, Subscription } from './types.ts';
import { sequenceSet, splitSet, uidRanges } from './uid-sets.ts';

export const HEADER_FIELDS = [
  'from',
  'list-unsubscribe',
  'list-unsubscribe-post',
  'list-id',
  'date',
  'subject',
  'authentication-results',
];

export type ScanPhase = 'connecting' | 'listing' | 'searching' | 'fetching' | 'finishing';

export interface ScanProgress {
  phase: ScanPhase;
  done: number;
  total: number;
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
      durationMs: number;
      cancelled: boolean;
      uids: ScanUidIndex;
      /** how the headers were read: 'lean' when every mailbox went through the lean connection */
      reader: 'lean' | 'imapflow';
    }
  | { ok: false; code: ScanFailureCode; message: string; authenticated: boolean };

/** Why a scan ended without a result; REFUSED: the `started` hook said no. */
export type ScanFailureCode = ImapFailureCode | 'MAILBOX_NOT_FOUND' | 'SCAN_FAILED' | 'REFUSED';

export async function runScan(
  endpoint: Endpoint,
  creds: ImapCredentials,
  guard: OutboundGuard,
  opts: ScanOptions,
  hooks: ScanHooks,
): Promise<ScanResult> {
  const started = Date.now();
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const deadline = setTimeout(
    () => {
      timedOut = true;
      stop.abort();
    },
    opts.timeoutMs ?? 15 * 60_000,
  );

  hooks.progress({ phase: 'connecting', done: 0, total: 0 });
  const timeouts = opts.imapTimeouts ?? DEFAULT_IMAP_TIMEOUTS;
  // Never a reason for a scan to fail: anything unexpected here means "no lean connection".
  const leanOpening =
    opts.leanFetch === false ? null : connectLean(endpoint, guard, timeouts, stop.signal).catch(() => null);
  const session = await openImap(endpoint, creds, guard, timeouts);
  if (!session.ok) {
    clearTimeout(deadline);
    opts.signal?.removeEventListener('abort', onAbort);
    void leanOpening?.then((r) => r?.ok && r.conn.close());
    return { ok: false, code: session.code, message: session.message, authenticated: false };
  }
  const client = session.client;
  // Signs in while imapflow lists; null when the lean connection cannot be used at all.
  const leanReady: Promise<LeanImap | null> = (leanOpening ?? Promise.resolve(null))
    .then(async (r) => {
      if (!r?.ok) return null;
      const signedIn = await signIn(r.conn, creds).catch(() => null);
      if (signedIn?.ok) return r.conn;
      r.conn.close();
      return null;
    })
    .catch(() => null);
  const grouper = createGrouper({ matchService: opts.matchService });
  const parse = createHeaderParser();
  const batchSize = opts.batchSize ?? 500;
  const uids: ScanUidIndex = { bySubscription: new Map(), uidValidity: new Map() };
  let scanned = 0;
  let total = 0;
  let allLean = leanOpening !== null;
  let current: ScanProgress = { phase: 'listing', done: 0, total: 0 };
  const ticker = setInterval(() => hooks.progress({ ...current, done: scanned }), opts.progressMs ?? 250);
  const changed = new Set<string>();
  const flushMs = opts.progressMs ?? 250;
  let flushedAt = -1;
  /** Sends the subscriptions that changed: the first at once, then at most every flushMs. */
  const flush = (force: boolean) => {
    if (changed.size === 0 || (!force && flushedAt >= 0 && Date.now() - flushedAt < flushMs)) return;
    for (const id of changed) hooks.subscription(grouper.get(id));
    changed.clear();
    flushedAt = Date.now();
  };
  // The UID lists of the mailbox being read, by subscription id (the same arrays as in `uids`):
  // one lookup per message instead of two.
  let boxLists = new Map<string, number[]>();
  let listsOf: ResolvedMailbox | null = null;
  /** One message: parse, group, remember its UID under its subscription. CPU only. */
  const take = (box: ResolvedMailbox, uid: number, seen: boolean, headers: Buffer) => {
    scanned++;
    const parsed = parse({ uid, mailbox: box.path, junk: box.junk, seen, headers }, { onlyWithMethods: true });
    const id = parsed && grouper.add(parsed);
    if (!id) return;
    changed.add(id);
    if (flushedAt < 0) flush(true); // the first subscription goes out at once
    if (listsOf !== box) {
      listsOf = box;
      boxLists = new Map();
    }
    let list = boxLists.get(id);
    if (list === undefined) {
      let perBox = uids.bySubscription.get(id);
      if (perBox === undefined) {
        perBox = new Map();
        uids.bySubscription.set(id, perBox);
      }
      list = perBox.get(box.path);
      if (list === undefined) {
        list = [];
        perBox.set(box.path, list);
      }
      boxLists.set(id, list);
    }
    list.push(uid);
  };
  /**
   * The FETCH of `sets` on the lean connection. 'fallback': refused before any message, so
   * imapflow reads this mailbox instead; a connection lost midway fails the scan (throws).
   */
  const leanFetch = async (box: ResolvedMailbox, conn: LeanImap, batches: UidBatch[]) => {
    let since = 0;
    const before = scanned;
    const outcome = await fetchHeaders(conn, batches, (m) => {
      take(box, m.uid, m.seen, m.headers);
      if (++since >= batchSize) {
        since = 0;
        flush(false);
        conn.yieldOnce(); // the process's other sockets (a cancel, other scans) get their turn
      }
    });
    flush(true);
    if (outcome.ok) return 'done';
    if (stop.signal.aborted) return 'aborted';
    if (outcome.code === 'REFUSED' && scanned === before) return 'fallback';
    throw new Error(`lean fetch: ${outcome.code}`);
  };
  let lean: LeanImap | null = null;
  try {
    hooks.progress(current);
    const resolved = await resolveMailboxes(client, opts.mailboxes);
    if (!resolved.ok) {
      return {
        ok: false,
        code: 'MAILBOX_NOT_FOUND',
        message: `No folder named ${resolved.missing.join(', ')}. Folders: ${resolved.available.join(', ')}`,
        authenticated: true,
      };
    }
    if (!(await hooks.started()))
      return { ok: false, code: 'REFUSED', message: 'The scan was not started.', authenticated: true };
    lean = await leanReady;
    allLean = lean !== null;

    for (const box of resolved.mailboxes) {
      if (stop.signal.aborted) break;
      current = { phase: 'searching', done: scanned, total, mailbox: box.path };
      hooks.progress(current);
      // Without a date, the lean connection's EXAMINE says all there is to know (EXISTS,
      // UIDVALIDITY, UIDNEXT); UID ranges up to UIDNEXT-1 read what existed then: no SEARCH,
      // whose answer imapflow would parse into 100k numbers first.
      const selected = lean && !opts.since ? await examine(lean, box.path) : null;
      if (lean && selected?.ok && selected.uidValidity !== null) {
        if (selected.exists === 0) continue;
        uids.uidValidity.set(box.path, selected.uidValidity);
        total += selected.exists;
        current = { phase: 'fetching', done: scanned, total, mailbox: box.path };
        hooks.progress(current);
        const how = await leanFetch(box, lean, uidRanges(selected.exists, selected.uidNext, batchSize));
        if (how === 'aborted') break;
        if (how === 'done') continue;
        total -= selected.exists;
      }
      const lock = await client.getMailboxLock(box.path, { readOnly: true });
      try {
        const mailbox = client.mailbox;
        const exists = mailbox ? mailbox.exists : 0;
        // An empty mailbox answers BAD to any sequence set (postalsys/imapflow#209).
        if (!mailbox || exists === 0) continue;
        uids.uidValidity.set(box.path, mailbox.uidValidity);
        // With a date: EXAMINE on the lean connection runs while imapflow searches.
        const leanSelected = lean && opts.since && !selected ? examine(lean, box.path) : null;
        const found = await searchUids(client, opts.since);
        total += found.length;
        current = { phase: 'fetching', done: scanned, total, mailbox: box.path };
        hooks.progress(current);
        if (found.length === 0) continue;
        const other = await leanSelected;
        if (lean && other?.ok && other.uidValidity === mailbox.uidValidity) {
          const batches: UidBatch[] = [];
          for (let i = 0; i < found.length; i += batchSize) {
            const uids = found.slice(i, i + batchSize);
            batches.push(...splitSet(sequenceSet(uids)).map((set) => ({ set, first: Number(set.split(/[:,]/)[0]) })));
          }
          const how = await leanFetch(box, lean, batches);
          if (how === 'aborted') break;
          if (how === 'done') continue;
        }
        allLean = false;
        for (let i = 0; i < found.length && !stop.signal.aborted; i += batchSize) {
          const range = sequenceSet(found.slice(i, i + batchSize));
          for await (const msg of client.fetch(
            range,
            { uid: true, flags: true, headers: HEADER_FIELDS },
            { uid: true },
          )) {
            take(box, msg.uid, msg.flags?.has('\\Seen') ?? false, msg.headers ?? Buffer.alloc(0));
            if (stop.signal.aborted) break;
          }
          flush(false);
        }
        flush(true);
      } finally {
        lock.release();
      }
    }
    if (timedOut)
      return { ok: false, code: 'TIMEOUT', message: 'The scan took too long and was stopped.', authenticated: true };
    hooks.progress({ phase: 'finishing', done: scanned, total });
    return {
      ok: true,
      scanned,
      subscriptions: grouper.all(),
      durationMs: Date.now() - started,
      cancelled: stop.signal.aborted,
      uids,
      reader: allLean ? 'lean' : 'imapflow',
    };
  } catch (err) {
    if (timedOut)
      return { ok: false, code: 'TIMEOUT', message: 'The scan took too long and was stopped.', authenticated: true };
    const d = describeImapError(err, `${endpoint.host}:${endpoint.port}`);
    return {
      ok: false,
      code: d.code === 'AUTH_FAILED' ? 'AUTH_FAILED' : 'SCAN_FAILED',
      message:
        d.code === 'AUTH_FAILED'
          ? d.message
          : 'The connection to the mail server was lost during the scan. Please try again.',
      authenticated: true,
    };
  } finally {
    clearInterval(ticker);
    clearTimeout(deadline);
    opts.signal?.removeEventListener('abort', onAbort);
    lean?.close();
    void leanReady.then((c) => c?.close()); // still signing in (an early return): close when it is done
    // Logout is polite but must not hang a dead connection, nor hold the result back: the scan
    // answers now, and close() frees the socket after LOGOUT's answer or a second at most.
    void Promise.race([client.logout().catch(() => {}), new Promise((r) => setTimeout(r, 1000))])
      .then(() => client.close())
      .catch(() => {}); // a socket already gone: nothing left to free
  }
}

/**
 * The UIDs to read, ascending, from one UID SEARCH (SINCE when a date is given, RFC 3501
 * §6.4.4; else ALL). Searching first keeps sparse UID spaces cheap: no round trips for empty
 * ranges; the FETCH gets them as compact sets ("1:500,502").
 */
async function searchUids(client: ImapFlow, since: Date | undefined): Promise<number[]> {
  const found = await client.search(since ? { since } : { all: true }, { uid: true });
  return (Array.isArray(found) ? found : []).sort((a, b) => a - b);
}
