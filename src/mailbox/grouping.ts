/**
 * Parsed messages → subscriptions, one per list, kept in memory for one scan.
 *
 * Rules (docs/websocket.md "A subscription"):
 * - A message counts only when it offers at least one usable unsubscribe method (one-click,
 *   http(s) link or mailto). A List-Id alone gives the user nothing to act on.
 * - Key: the List-Id when present (RFC 2919: one list, possibly many From addresses), else the
 *   lower-cased From address — per address, not per domain, so a shop's receipts and its
 *   newsletter stay apart. A message with neither is ignored.
 * - `id` is the first 16 hex digits of sha256(list_key): the same list has the same id in every
 *   scan, which is how an unsubscribe request is matched to what a later scan finds.
 * - "Most recent" is by Date header; messages without a usable date rank below dated ones, and
 *   among equals the later-added wins. Dates more than a day in the future (per `now`) or before
 *   1990 are treated as absent: one broken or hostile Date must not stretch a list's span.
 */
import { createHash } from 'node:crypto';
import { oneClickWithheld } from './one-click-evidence.ts';
import type {
  AuthVerdict,
  MailtoMethod,
  OneClickEvidence,
  OneClickWithheld,
  ParsedMessage,
  SenderAuth,
  ServiceMatch,
  Subscription,
} from './types.ts';

export interface GrouperOptions {
  /** catalog lookup by exact domain; the grouper tries the sender domain and its parents */
  matchService: (domain: string) => ServiceMatch | null;
  now?: () => Date;
  /** at most this many subscriptions; a message of a further list is dropped and counted */
  maxGroups?: number;
  /**
   * list_key → when the person unsubscribed from it earlier (ms): such a list's snapshots
   * carry `since_unsubscribe`, its messages dated after that moment
   */
  unsubscribedAt?: ReadonlyMap<string, number>;
}

export interface Grouper {
  /** Add one message; returns the id of the subscription it changed, or null if it was ignored. */
  add(msg: ParsedMessage): string | null;
  /** A snapshot of one subscription; `id` must be one that `add` returned (else a bug: throws). */
  get(id: string): Subscription;
  /** Snapshots of all subscriptions, most messages first (then most recent, then by key). */
  all(): Subscription[];
  /** messages dropped because they belonged to a list past `maxGroups` */
  readonly dropped: number;
}

const MAX_METHODS = 5;
const MAX_SAMPLES = 3;
const DAY_MS = 86_400_000;
const MONTH_MS = 30 * DAY_MS;
const EARLIEST_MS = Date.UTC(1990, 0, 1);

interface Group {
  id: string;
  listKey: string;
  listId: string | null;
  count: number;
  seen: number;
  junk: number;
  firstMs: number | null;
  lastMs: number | null;
  /** rank of the newest message so far (see later()); seq -1 before the first */
  newestMs: number;
  newestSeq: number;
  /** the mailbox added last: most messages come from the same one as the message before */
  lastMailbox: string | null;
  oneClick: string | null;
  oneClickWithheld: OneClickWithheld | null;
  /** the newest message's unchecked one-click evidence (a deferring parser), checked at the next snapshot */
  evidence: OneClickEvidence | null;
  http: string[];
  mailto: MailtoMethod[];
  subjects: Ranked<string>[];
  name: Ranked<string> | null;
  listName: Ranked<string> | null;
  address: Ranked<string> | null;
  auth: SenderAuth;
  mailboxes: Set<string>;
  /** when the person unsubscribed from this list earlier (ms), else null */
  leftMs: number | null;
  /** messages dated after leftMs */
  sinceLeft: number;
}

export function listKeyOf(msg: Pick<ParsedMessage, 'listId' | 'from'>): string | null {
  if (msg.listId) return `list:${msg.listId}`;
  return msg.from ? `from:${msg.from.address.toLowerCase()}` : null;
}

export function subscriptionId(listKey: string): string {
  return createHash('sha256').update(listKey).digest('hex').slice(0, 16);
}

export function createGrouper(opts: GrouperOptions): Grouper {
  const nowMs = opts.now ? () => opts.now!().getTime() : Date.now;
  const groups = new Map<string, Group>();
  const services = new Map<string, ServiceMatch | null>();
  // Per scan these see the same few strings again and again (the parser hands out one string per
  // distinct List-Id or address), so each list_key is built, hashed and lower-cased once.
  const keyByListId = new Map<string, string>();
  const keyByAddress = new Map<string, string>();
  const lower = new Map<string, string>();
  const byKey = new Map<string, Group>(); // list_key → its group: one SHA-256 per list, not per message
  let seq = 0;
  let dropped = 0;
  const maxGroups = opts.maxGroups ?? Number.POSITIVE_INFINITY;

  function add(msg: ParsedMessage): string | null {
    const m = msg.methods;
    if (!m.one_click && m.http.length === 0 && m.mailto.length === 0) return null;
    const listKey = keyOf(msg);
    if (!listKey) return null;
    let g = byKey.get(listKey);
    if (g === undefined) {
      const id = subscriptionId(listKey);
      g = groups.get(id); // another key with the same id (a 64-bit collision) shares its group
      if (!g && groups.size >= maxGroups) {
        dropped++;
        return null;
      }
      if (!g) {
        g = newGroup(id, listKey, msg.listId);
        g.leftMs = opts.unsubscribedAt?.get(listKey) ?? null;
        groups.set(id, g);
      }
      byKey.set(listKey, g);
    }
    const id = g.id;
    const ms = plausibleTime(msg.date, nowMs());
    const rankMs = ms ?? Number.NEGATIVE_INFINITY;
    const rankSeq = seq++;
    const isNewest = later(rankMs, rankSeq, g.newestMs, g.newestSeq);
    g.count++;
    if (msg.seen) g.seen++;
    if (msg.junk) g.junk++;
    if (ms !== null) {
      g.firstMs = g.firstMs === null ? ms : Math.min(g.firstMs, ms);
      g.lastMs = g.lastMs === null ? ms : Math.max(g.lastMs, ms);
      // an undated message cannot be placed before or after the unsubscription: not counted
      if (g.leftMs !== null && ms > g.leftMs) g.sinceLeft++;
    }
    // Unsubscribe URLs often carry a per-message token: the newest message's are the live ones,
    // and its one-click (or lack of one) is the sender's current behaviour.
    // Older tokens may already be dead, and offering five variants of the same address
    // helps no one: all three method lists are the newest message's.
    if (isNewest) {
      g.newestMs = rankMs;
      g.newestSeq = rankSeq;
      g.oneClick = m.one_click;
      g.oneClickWithheld = msg.oneClickWithheld;
      g.evidence = msg.oneClickEvidence ?? null;
      g.http = m.http.length <= MAX_METHODS ? m.http : m.http.slice(0, MAX_METHODS);
      g.mailto = m.mailto.length <= MAX_METHODS ? m.mailto : m.mailto.slice(0, MAX_METHODS);
    }
    if (msg.subject) addSample(g.subjects, msg.subject, rankMs, rankSeq);
    if (msg.from?.name) g.name = newer(g.name, msg.from.name, rankMs, rankSeq);
    if (msg.listName) g.listName = newer(g.listName, msg.listName, rankMs, rankSeq);
    if (msg.from) g.address = newer(g.address, lowerCase(msg.from.address), rankMs, rankSeq);
    mergeAuth(g.auth, msg.auth);
    if (g.lastMailbox !== msg.mailbox) {
      g.mailboxes.add(msg.mailbox);
      g.lastMailbox = msg.mailbox;
    }
    return id;
  }

  /** listKeyOf, built once per distinct List-Id or address. */
  function keyOf(msg: ParsedMessage): string | null {
    if (msg.listId) {
      let key = keyByListId.get(msg.listId);
      if (key === undefined) {
        key = `list:${msg.listId}`;
        keyByListId.set(msg.listId, key);
      }
      return key;
    }
    if (!msg.from) return null;
    let key = keyByAddress.get(msg.from.address);
    if (key === undefined) {
      key = `from:${lowerCase(msg.from.address)}`;
      keyByAddress.set(msg.from.address, key);
    }
    return key;
  }

  function lowerCase(s: string): string {
    let l = lower.get(s);
    if (l === undefined) {
      l = s.toLowerCase();
      lower.set(s, l);
    }
    return l;
  }

  function snapshot(g: Group): Subscription {
    if (g.evidence !== null) {
      // RFC 8058 §3.1 evidence for the one-click the list now offers (one-click-evidence.ts)
      const e = g.evidence;
      g.evidence = null;
      g.oneClickWithheld = oneClickWithheld(e.authResults, e.dkimSignatures, e.fromDomain);
      if (g.oneClickWithheld !== null) g.oneClick = null;
    }
    const address = g.address?.value ?? '';
    const domain = address.slice(address.lastIndexOf('@') + 1);
    const spanMonths = g.firstMs === null || g.lastMs === null ? 0 : (g.lastMs - g.firstMs) / MONTH_MS;
    return {
      id: g.id,
      list_key: g.listKey,
      sender: { name: g.name?.value ?? g.listName?.value ?? '', address, domain },
      list_id: g.listId,
      count: g.count,
      first_seen: g.firstMs === null ? null : new Date(g.firstMs).toISOString(),
      last_seen: g.lastMs === null ? null : new Date(g.lastMs).toISOString(),
      // Mail per 30-day month over the span observed; a span under a month counts as one month,
      // so a burst of three mails in a week reads as 3/month, not 13.
      per_month: round2(g.count / Math.max(1, spanMonths)),
      read_rate: round2(g.seen / g.count),
      methods: { one_click: g.oneClick, http: [...g.http], mailto: g.mailto.map((x) => ({ ...x })) },
      one_click_withheld: g.oneClickWithheld,
      sample_subjects: g.subjects.map((x) => x.value),
      auth: { ...g.auth },
      mailboxes: [...g.mailboxes].sort(),
      junk_only: g.junk === g.count,
      service: serviceFor(domain),
      ...(g.leftMs === null ? {} : { since_unsubscribe: g.sinceLeft }),
    };
  }

  /** The catalog match for a domain or its nearest parent with at least two labels. */
  function serviceFor(domain: string): ServiceMatch | null {
    if (domain === '') return null;
    let hit = services.get(domain);
    if (hit === undefined) {
      const labels = domain.split('.');
      hit = null;
      for (let i = 0; hit === null && (i === 0 || labels.length - i >= 2); i++) {
        hit = opts.matchService(labels.slice(i).join('.'));
      }
      services.set(domain, hit);
    }
    return hit;
  }

  return {
    add,
    get dropped() {
      return dropped;
    },
    get: (id) => {
      const g = groups.get(id);
      if (!g) throw new Error(`grouper.get: unknown subscription id ${id}`);
      return snapshot(g);
    },
    all: () =>
      [...groups.values()]
        .map(snapshot)
        .sort(
          (a, b) =>
            b.count - a.count ||
            (b.last_seen ?? '').localeCompare(a.last_seen ?? '') ||
            a.list_key.localeCompare(b.list_key),
        ),
  };
}

function newGroup(id: string, listKey: string, listId: string | null): Group {
  return {
    id,
    listKey,
    listId,
    count: 0,
    seen: 0,
    junk: 0,
    firstMs: null,
    lastMs: null,
    newestMs: Number.NEGATIVE_INFINITY,
    newestSeq: -1,
    lastMailbox: null,
    oneClick: null,
    oneClickWithheld: null,
    evidence: null,
    http: [],
    mailto: [],
    subjects: [],
    name: null,
    listName: null,
    address: null,
    auth: { dkim: 'unknown', spf: 'unknown', dmarc: 'unknown' },
    mailboxes: new Set(),
    leftMs: null,
    sinceLeft: 0,
  };
}

/**
 * Order of messages within a group, their rank: the date in ms (-Infinity when missing or
 * implausible), then arrival order (seq). A later date wins; undated messages and ties go by
 * scan order. Kept as two numbers, not a pair object: this runs for every message.
 */
interface Ranked<T> {
  value: T;
  ms: number;
  seq: number;
}

/** Whether rank (ms, seq) is after (ms2, seq2); seq2 -1 means "nothing yet". */
function later(ms: number, seq: number, ms2: number, seq2: number): boolean {
  return seq2 < 0 || ms > ms2 || (ms === ms2 && seq > seq2);
}

/**
 * Up to MAX_SAMPLES distinct subjects, most recent first (a repeat keeps its newest rank).
 * In place: the list belongs to its group, and snapshots copy it.
 */
function addSample(cur: Ranked<string>[], value: string, ms: number, seq: number): void {
  let at = -1;
  for (let i = 0; i < cur.length; i++) {
    if (cur[i]!.value === value) {
      at = i;
      break;
    }
  }
  if (at >= 0) {
    const old = cur[at]!;
    if (!later(ms, seq, old.ms, old.seq)) return; // nothing changes
    cur.splice(at, 1); // re-inserted at its new place below
  }
  // insert before the first older sample (the list stays newest first)
  let to = 0;
  while (to < cur.length && !later(ms, seq, cur[to]!.ms, cur[to]!.seq)) to++;
  if (to >= MAX_SAMPLES) return; // older than every kept sample of a full list
  cur.splice(to, 0, { value, ms, seq });
  if (cur.length > MAX_SAMPLES) cur.pop();
}

// Worst verdict seen wins: fail > none > pass > unknown. "unknown" means a message said nothing
// (no Authentication-Results), so it neither spoils a pass nor hides a failure.
const SEVERITY: Record<AuthVerdict, number> = { unknown: 0, pass: 1, none: 2, fail: 3 };

function worst(a: AuthVerdict, b: AuthVerdict): AuthVerdict {
  return SEVERITY[b] > SEVERITY[a] ? b : a;
}

/** Folds b into a (a group's own verdicts, which snapshots copy). */
function mergeAuth(a: SenderAuth, b: SenderAuth): void {
  a.dkim = worst(a.dkim, b.dkim);
  a.spf = worst(a.spf, b.spf);
  a.dmarc = worst(a.dmarc, b.dmarc);
}

/** The newer of the kept value and this one; the kept record is updated in place. */
function newer<T>(cur: Ranked<T> | null, value: T, ms: number, seq: number): Ranked<T> {
  if (cur === null) return { value, ms, seq };
  if (later(ms, seq, cur.ms, cur.seq)) {
    cur.value = value;
    cur.ms = ms;
    cur.seq = seq;
  }
  return cur;
}

function plausibleTime(date: Date | null, nowMs: number): number | null {
  const ms = date?.getTime();
  if (ms === undefined || Number.isNaN(ms) || ms < EARLIEST_MS || ms > nowMs + DAY_MS) return null;
  return ms;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
