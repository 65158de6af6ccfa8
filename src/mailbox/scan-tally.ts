/**
 * The CPU side of a scan: every fetched message goes through `take` — parsed, grouped, its UID
 * kept under its subscription — and nothing else of it is kept, so memory stays flat however
 * large the mailbox. Changed subscriptions are reported the first at once, then at most every
 * `progressMs` and at the end of each mailbox (`flush(true)`); progress at least as often.
 *
 * When the scan reads several folders, a message whose Message-ID (RFC 5322 §3.6.4) was already
 * counted in another folder counts once: its UID is still kept (archiving moves every copy),
 * but the grouping sees it only the first time. Only a 53-bit hash of each list message's
 * Message-ID is remembered, for this scan only.
 */
import { createGrouper } from './grouping.ts';
import { createHeaderParser } from './headers.ts';
import type { ResolvedMailbox } from './mailboxes.ts';
import type { ScanHooks, ScanProgress, ScanUidIndex } from './scan.ts';
import type { CapHit, ScanCaps } from './scan-caps.ts';
import type { ServiceMatch, Subscription } from './types.ts';

export interface Tally {
  readonly scanned: number;
  readonly uids: ScanUidIndex;
  /** every folder read, in order, with the messages read in it */
  readonly mailboxes: { path: string; messages: number }[];
  /** Reports a phase now; the ticker repeats it with the current count. */
  report(phase: ScanProgress['phase'], mailbox?: string): void;
  /** Messages found to read (adds to the total progress counts against; negative takes back). */
  expect(n: number): void;
  /** A folder starts being read. */
  enter(box: ResolvedMailbox): void;
  /** One message; CPU only (it runs inside imapflow's FETCH loop). */
  take(uid: number, seen: boolean, headers: Uint8Array): void;
  /** Messages left unread by the cap on messages per scan. */
  notRead(n: number): void;
  /**
   * Messages of the folder being read that a search found without a List-Unsubscribe field
   * (search-first.ts): read and counted, though never fetched, since none can be a subscription.
   */
  skipped(n: number): void;
  /** Progress only: messages a search has ruled out that skipped() has not counted yet. */
  ruledOut(n: number): void;
  /** The caps this scan reached, with how many messages each left out or cut. */
  capped(): CapHit[];
  /** Sends the subscriptions that changed; without `force`, at most every progressMs. */
  flush(force: boolean): void;
  subscriptions(): Subscription[];
  stop(): void;
}

export function createTally(
  opts: {
    matchService: (domain: string) => ServiceMatch | null;
    progressMs: number;
    dedupe: boolean;
    caps: ScanCaps;
    unsubscribedAt?: ReadonlyMap<string, number>;
  },
  hooks: Pick<ScanHooks, 'progress' | 'subscription'>,
): Tally {
  const { caps } = opts;
  const grouper = createGrouper({
    matchService: opts.matchService,
    maxGroups: caps.subscriptions,
    unsubscribedAt: opts.unsubscribedAt,
  });
  let unread = 0;
  let cut = 0;
  const parse = createHeaderParser({ memo: true, deferEvidence: true });
  const uids: ScanUidIndex = { bySubscription: new Map(), uidValidity: new Map() };
  const mailboxes: { path: string; messages: number }[] = [];
  const seenIds = opts.dedupe ? new Map<number, string>() : null;
  const changed = new Set<string>();
  let scanned = 0;
  let flushedAt = -1;
  let total = 0;
  // ruled out by a search, counted by skipped() when the folder is done (progress only)
  let outstanding = 0;
  let current: Pick<ScanProgress, 'phase' | 'mailbox'> = { phase: 'listing' };
  let box: ResolvedMailbox | null = null;
  let counted: { path: string; messages: number } | null = null;
  // The UID lists of the folder being read, by subscription id (the same arrays as in `uids`):
  // one lookup per message instead of two.
  let boxLists = new Map<string, number[]>();
  const progress = () =>
    hooks.progress(
      current.mailbox === undefined
        ? { phase: current.phase, done: scanned + outstanding, total }
        : { ...current, done: scanned + outstanding, total },
    );
  const ticker = setInterval(progress, opts.progressMs);

  function flush(force: boolean) {
    if (changed.size === 0 || (!force && flushedAt >= 0 && Date.now() - flushedAt < opts.progressMs)) return;
    for (const id of changed) hooks.subscription(grouper.get(id));
    changed.clear();
    flushedAt = Date.now();
  }

  function listFor(id: string, path: string): number[] {
    let list = boxLists.get(id);
    if (list !== undefined) return list;
    let perBox = uids.bySubscription.get(id);
    if (perBox === undefined) {
      perBox = new Map();
      uids.bySubscription.set(id, perBox);
    }
    list = perBox.get(path);
    if (list === undefined) {
      list = [];
      perBox.set(path, list);
    }
    boxLists.set(id, list);
    return list;
  }

  return {
    get scanned() {
      return scanned;
    },
    uids,
    mailboxes,
    report(phase, mailbox) {
      current = { phase, mailbox };
      progress();
    },
    expect(n) {
      total += n;
    },
    enter(next) {
      box = next;
      counted = { path: next.path, messages: 0 };
      mailboxes.push(counted);
      boxLists = new Map();
    },
    take(uid, seen, headers) {
      if (scanned >= caps.messages) {
        unread++; // a server that sent more than asked
        return;
      }
      scanned++;
      counted!.messages++;
      const b = box!;
      let block = headers;
      if (block.byteLength >= caps.headerBytes) {
        // At the cap the block may end inside a field: only whole lines are read.
        cut++;
        const lf = Buffer.from(
          block.buffer,
          block.byteOffset,
          Math.min(block.byteLength, caps.headerBytes),
        ).lastIndexOf(10);
        block = block.subarray(0, lf + 1);
      }
      const parsed = parse({ uid, mailbox: b.path, junk: b.junk, seen, headers: block }, { onlyWithMethods: true });
      if (!parsed) return;
      const key = seenIds && parsed.messageId !== null ? hash53(parsed.messageId) : null;
      const earlier = key === null ? undefined : seenIds!.get(key);
      if (earlier !== undefined) {
        listFor(earlier, b.path).push(uid); // a copy: archived with the rest, counted once
        return;
      }
      const id = grouper.add(parsed);
      if (!id) return;
      if (key !== null) seenIds!.set(key, id);
      changed.add(id);
      if (flushedAt < 0) flush(true); // the first subscription goes out at once
      listFor(id, b.path).push(uid);
    },
    notRead(n) {
      unread += n;
    },
    skipped(n) {
      scanned += n;
      counted!.messages += n;
      outstanding = 0;
    },
    ruledOut(n) {
      outstanding += n;
    },
    capped() {
      const hits: CapHit[] = [];
      if (unread > 0) hits.push({ cap: 'messages', limit: caps.messages, count: unread });
      if (cut > 0) hits.push({ cap: 'headerBytes', limit: caps.headerBytes, count: cut });
      if (grouper.dropped > 0) hits.push({ cap: 'subscriptions', limit: caps.subscriptions, count: grouper.dropped });
      return hits;
    },
    flush,
    subscriptions: () => grouper.all(),
    stop: () => clearInterval(ticker),
  };
}

/** cyrb53 (public domain): a 53-bit string hash; collisions at 10^5 ids ≈ 10^-6. */
function hash53(s: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
