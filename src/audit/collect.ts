/**
 * Finds and reads the billing mail of a scanned mailbox over IMAP (imapflow, as the archiver
 * does): in each folder the scan read, a UID SEARCH for mail from the catalog's sender domains
 * (RFC 3501 §6.4.4: FROM matches a substring of the From field, so every hit's From is checked
 * again here), within the scan's period; then the header fields of the newest hits; then the
 * bodies of at most `perService` of them per service (BODY.PEEK, RFC 3501 §6.4.5: nothing is
 * marked read; at most `maxBytes` each, as a partial fetch). Each body is read as it arrives and
 * dropped; nothing is kept but the readings.
 *
 * Skipped: Junk/Spam folders, and messages whose Authentication-Results say DKIM or DMARC
 * failed (RFC 8601; a forged receipt is a phishing mail, not a charge). docs/audit.md.
 */
import type { ImapFlow } from 'imapflow';
import { createHeaderParser } from '../mailbox/headers.ts';
import { type ImapCredentials, type ImapFailureCode, openImap } from '../mailbox/imap-connect.ts';
import type { Endpoint } from '../mailbox/providers.ts';
import { sequenceSet } from '../mailbox/uid-sets.ts';
import type { OutboundGuard } from '../outbound/guard.ts';
import { messageText } from './message-text.ts';
import { type ReceiptReading, readReceipt } from './receipt.ts';
import type { AuditCatalog, AuditServiceInfo } from './senders.ts';
import type { DatedReading } from './spend.ts';

export interface MailboxSource {
  imap: Endpoint;
  /** or where to get them when the connection opens (an OAuth access token fresh then) */
  creds: ImapCredentials | (() => Promise<ImapCredentials | { error: string }>);
  /** the folders the scan read */
  mailboxes: readonly string[];
  since: Date | null;
  /** when the scan ended: later mail is not the scanned period's */
  until: Date;
}

export interface CollectLimits {
  /** bodies read per service, newest first */
  perService: number;
  /** search hits whose header fields are fetched per folder, newest first */
  maxHeaders: number;
  /** bytes of a message read at most */
  maxBytes: number;
  /** bodies fetched per FETCH command */
  batch: number;
}

export const DEFAULT_LIMITS: CollectLimits = { perService: 12, maxHeaders: 20_000, maxBytes: 256 * 1024, batch: 10 };

/** UIDs per header FETCH (each a bounded command; the scan uses batches of this size too). */
const HEADER_BATCH = 500;

export interface Collected {
  /** slug → its billing messages with their dates */
  readings: Map<string, { service: AuditServiceInfo; found: DatedReading[]; cancelled: Date | null }>;
  /** the oldest candidate's date (for the audit's period when the scan had no `since`) */
  oldest: Date | null;
  cancelled: boolean;
}

export type CollectOutcome =
  | ({ ok: true } & Collected)
  | { ok: false; code: ImapFailureCode | 'AUDIT_FAILED'; message: string };

interface Candidate {
  path: string;
  uid: number;
  service: AuditServiceInfo;
  date: Date;
  subject: string | null;
  /** it offers an unsubscribe: more likely an advert than a receipt */
  listed: boolean;
  messageId: string | null;
}

const HEADER_FIELDS = [
  'from',
  'date',
  'subject',
  'message-id',
  'authentication-results',
  'list-unsubscribe',
  'list-unsubscribe-post',
];
const DAY_MS = 86_400_000;

export async function collectReceipts(
  source: MailboxSource,
  senders: AuditCatalog,
  guard: OutboundGuard,
  opts: { limits?: Partial<CollectLimits>; signal?: AbortSignal; progress(done: number, total: number): void },
): Promise<CollectOutcome> {
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const empty = { ok: true as const, readings: new Map(), oldest: null, cancelled: false };
  if (senders.domains.length === 0 || source.mailboxes.length === 0) return empty;
  const creds = typeof source.creds === 'function' ? await source.creds() : source.creds;
  if ('error' in creds) return { ok: false, code: 'AUTH_FAILED', message: creds.error };
  const opened = await openImap(source.imap, creds, guard);
  if (!opened.ok) return opened;
  const client = opened.client;
  const stop = () => client.close();
  opts.signal?.addEventListener('abort', stop, { once: true });
  // Kept outside the try: a cancel (which closes the connection) answers with what was read.
  const found: Candidate[] = [];
  const readings: Collected['readings'] = new Map();
  const result = (): CollectOutcome => ({
    ok: true,
    readings,
    oldest: found.reduce<Date | null>((o, c) => (o === null || c.date < o ? c.date : o), null),
    cancelled: Boolean(opts.signal?.aborted),
  });
  try {
    const folders = await readableFolders(client, source.mailboxes);
    for (const path of folders) {
      if (opts.signal?.aborted) break;
      found.push(...(await candidatesIn(client, path, source, senders, limits.maxHeaders)));
    }
    const chosen = choose(found, limits.perService);
    let done = 0;
    opts.progress(0, chosen.length);
    for (const path of folders) {
      const here = chosen.filter((c) => c.path === path);
      for (let i = 0; i < here.length && !opts.signal?.aborted; i += limits.batch) {
        await readBodies(client, path, here.slice(i, i + limits.batch), limits.maxBytes, (c, reading) => {
          const entry = readings.get(c.service.slug) ?? { service: c.service, found: [], cancelled: null };
          if (reading?.kind) entry.found.push({ date: c.date, reading });
          else if (reading?.why === 'cancelled' && (entry.cancelled === null || c.date > entry.cancelled))
            entry.cancelled = c.date;
          if (entry.found.length || entry.cancelled) readings.set(c.service.slug, entry);
          opts.progress(++done, chosen.length);
        });
      }
    }
    return result();
  } catch {
    if (opts.signal?.aborted) return result();
    return {
      ok: false,
      code: 'AUDIT_FAILED',
      message: 'The connection to the mail server was lost while reading receipts. Please try again.',
    };
  } finally {
    opts.signal?.removeEventListener('abort', stop);
    await client.logout().catch(() => client.close());
  }
}

/** The scanned folders that still exist and are not Junk/Spam (RFC 6154 \Junk, or by name). */
async function readableFolders(client: ImapFlow, scanned: readonly string[]): Promise<string[]> {
  const list = await client.list();
  const junk = (path: string, flag?: string) =>
    flag === '\\Junk' || /^(junk|spam|bulk)( mail| e-?mail)?$/i.test(path.split(/[/.]/).at(-1) ?? path);
  return scanned.filter((p) => {
    const m = list.find((l) => l.path === p);
    return m !== undefined && !junk(m.path, m.specialUse);
  });
}

async function candidatesIn(
  client: ImapFlow,
  path: string,
  source: MailboxSource,
  senders: AuditCatalog,
  maxHeaders: number,
): Promise<Candidate[]> {
  const lock = await client.getMailboxLock(path, { readOnly: true });
  try {
    if (!client.mailbox || client.mailbox.exists === 0) return [];
    const from = senders.domains.map((d) => ({ from: d }));
    const query = from.length === 1 ? { ...from[0]! } : { or: from };
    const hits = await client.search(source.since ? { ...query, since: source.since } : query, { uid: true });
    if (!Array.isArray(hits) || hits.length === 0) return [];
    // Every hit's header fields (a shop's order mail must not crowd out another service's
    // receipts), up to maxHeaders of the newest; each service's newest are chosen afterwards.
    const newest = hits.sort((a, b) => b - a).slice(0, maxHeaders);
    const parse = createHeaderParser({ memo: false });
    const out: Candidate[] = [];
    const take = (msg: Fetched) => {
      const p = parse({
        uid: msg.uid,
        mailbox: path,
        junk: false,
        seen: true,
        headers: msg.headers ?? Buffer.alloc(0),
      });
      const address = p?.from?.address ?? '';
      const service = senders.match(address.slice(address.lastIndexOf('@') + 1));
      if (!p || !service || p.auth.dkim === 'fail' || p.auth.dmarc === 'fail') return;
      const received = msg.internalDate ? new Date(msg.internalDate) : null;
      const date = p.date ?? received;
      if (!date || Number.isNaN(date.getTime())) return;
      if (date.getTime() > source.until.getTime() + DAY_MS) return;
      if (source.since && date < source.since) return;
      out.push({
        path,
        uid: msg.uid,
        service,
        date,
        subject: p.subject,
        listed: Boolean(p.methods.one_click || p.methods.http.length || p.methods.mailto.length),
        messageId: p.messageId,
      });
    };
    for (let i = 0; i < newest.length; i += HEADER_BATCH)
      await headersOf(client, newest.slice(i, i + HEADER_BATCH), take);
    return out;
  } finally {
    lock.release();
  }
}

type Fetched = { uid: number; internalDate?: Date | string; headers?: Buffer };

/** The header fields of some UIDs; only CPU work inside the FETCH loop (postalsys/imapflow#159). */
async function headersOf(client: ImapFlow, uids: number[], each: (msg: Fetched) => void): Promise<void> {
  for await (const msg of client.fetch(
    sequenceSet([...uids].sort((a, b) => a - b)),
    { uid: true, internalDate: true, headers: HEADER_FIELDS },
    { uid: true },
  )) {
    each(msg);
  }
}

/** Per service: unlisted mail first (receipts rarely offer an unsubscribe), newest first; one copy per Message-ID. */
function choose(found: Candidate[], perService: number): Candidate[] {
  const seen = new Set<string>();
  const bySlug = new Map<string, Candidate[]>();
  for (const c of found) {
    if (c.messageId !== null) {
      if (seen.has(c.messageId)) continue;
      seen.add(c.messageId);
    }
    const list = bySlug.get(c.service.slug) ?? [];
    list.push(c);
    bySlug.set(c.service.slug, list);
  }
  const out: Candidate[] = [];
  for (const list of bySlug.values()) {
    list.sort((a, b) => Number(a.listed) - Number(b.listed) || b.date.getTime() - a.date.getTime());
    out.push(...list.slice(0, perService));
  }
  return out;
}

/** Fetches and reads a few bodies; only CPU work inside the FETCH loop (postalsys/imapflow#159). */
async function readBodies(
  client: ImapFlow,
  path: string,
  batch: Candidate[],
  maxBytes: number,
  each: (c: Candidate, reading: ReceiptReading | null) => void,
): Promise<void> {
  const byUid = new Map(batch.map((c) => [c.uid, c]));
  const lock = await client.getMailboxLock(path, { readOnly: true });
  try {
    for await (const msg of client.fetch(
      sequenceSet(batch.map((c) => c.uid).sort((a, b) => a - b)),
      { uid: true, source: { maxLength: maxBytes } },
      { uid: true },
    )) {
      const c = byUid.get(msg.uid);
      if (!c || !msg.source) continue;
      byUid.delete(msg.uid);
      const text = await messageText(msg.source);
      const r = readReceipt({ subject: c.subject, text, service: c.service });
      each(c, r);
    }
    for (const c of byUid.values()) each(c, null); // gone since the search: counted as read
  } finally {
    lock.release();
  }
}
