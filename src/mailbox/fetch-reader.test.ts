/**
 * The lean reader against a real Dovecot (test/helpers/dovecot.ts, TLS with the test CA):
 * for a generated mailbox it returns exactly what imapflow's fetch returns (UIDs, \Seen,
 * header bytes), in every folder; runScan through it gives exactly the result runScan gives
 * through imapflow alone, with and without `since`; when Dovecot refuses the second connection
 * the scan falls back to imapflow and still succeeds; and nothing is ever marked read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ImapFlow } from 'imapflow';
import { byMailbox, generateMailbox } from '../../test/fixtures/mail-generator.ts';
import { type Dovecot, startDovecot } from '../../test/helpers/dovecot.ts';
import { trustTestCa } from '../../test/helpers/tls-ca.ts';
import { createOutboundGuard, type OutboundGuard } from '../outbound/guard.ts';
import { type FetchedHeaders, fetchHeaders } from './fetch-reader.ts';
import { examine, signIn } from './lean-commands.ts';
import { connectLean } from './lean-imap.ts';
import { HEADER_FIELDS, runScan, type ScanResult } from './scan.ts';
import type { Subscription } from './types.ts';

const ALL = [{ set: '1:*', first: 1 }];
const PASSWORD = 'pw with spaces & "quotes"';
const USER = 'eq@example.test';
const now = new Date('2026-11-22T00:00:00Z');
const nasty = generateMailbox({ seed: 11, lists: 24, messagesPerList: [2, 14], plain: 30, nasty: true, now });
const many = generateMailbox({ seed: 5, lists: 60, messagesPerList: [10, 30], plain: 200, nasty: false, now });
const boxes = byMailbox([...nasty.messages, ...many.messages].sort((a, b) => a.date.getTime() - b.date.getTime()));

let dovecot: Dovecot;
let guard: OutboundGuard;

before(async () => {
  trustTestCa();
  dovecot = await startDovecot({ users: [{ user: USER, password: PASSWORD, mailboxes: boxes }] });
  guard = createOutboundGuard({ allowHosts: [`127.0.0.1:${dovecot.imapsPort}`, `127.0.0.1:${dovecot.imapPort}`] });
});
after(async () => {
  await guard?.close();
  await dovecot?.stop();
});

const endpoint = () => ({ host: '127.0.0.1', port: dovecot.imapsPort, tls: 'implicit' as const });

async function withImapflow<T>(fn: (c: ImapFlow) => Promise<T>): Promise<T> {
  const c = new ImapFlow({
    host: '127.0.0.1',
    port: dovecot.imapsPort,
    secure: true,
    auth: { user: USER, pass: PASSWORD },
    logger: false,
  });
  c.on('error', () => {});
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.logout();
  }
}

async function viaImapflow(path: string): Promise<FetchedHeaders[]> {
  return withImapflow(async (c) => {
    await c.mailboxOpen(path, { readOnly: true });
    const out: FetchedHeaders[] = [];
    for await (const m of c.fetch('1:*', { uid: true, flags: true, headers: HEADER_FIELDS }, { uid: true }))
      out.push({ uid: m.uid, seen: m.flags?.has('\\Seen') ?? false, headers: m.headers ?? Buffer.alloc(0) });
    return out;
  });
}

async function viaLean(path: string, tls: 'implicit' | 'starttls' = 'implicit'): Promise<FetchedHeaders[]> {
  const port = tls === 'implicit' ? dovecot.imapsPort : dovecot.imapPort;
  const c = await connectLean({ host: '127.0.0.1', port, tls }, guard, { connectMs: 5000, socketMs: 10_000 });
  assert.ok(c.ok, 'connected');
  try {
    assert.deepEqual(await signIn(c.conn, { user: USER, password: PASSWORD }), { ok: true });
    const box = await examine(c.conn, path);
    assert.ok(box.ok);
    const out: FetchedHeaders[] = [];
    const r = await fetchHeaders(c.conn, ALL, (m) => out.push(m));
    assert.deepEqual(r, { ok: true, messages: box.exists, malformed: 0 });
    return out;
  } finally {
    c.conn.close();
  }
}

const scan = (leanFetch: boolean, extra: { since?: Date; mailboxes?: string[] } = {}) => {
  const sent: Subscription[] = [];
  return runScan(
    endpoint(),
    { user: USER, password: PASSWORD },
    guard,
    {
      matchService: () => null,
      leanFetch,
      mailboxes: extra.mailboxes ?? ['INBOX', 'junk', 'archive'],
      since: extra.since,
    },
    { progress: () => {}, subscription: (s) => sent.push(s), started: async () => true },
  ).then((r) => ({ r, sent }));
};

/** The parts of a result that must not depend on how the headers were read. */
function comparable(r: ScanResult) {
  assert.ok(r.ok);
  return {
    scanned: r.scanned,
    subscriptions: r.subscriptions,
    cancelled: r.cancelled,
    // The order UIDs arrive in is the server's; what matters is which messages each list owns.
    uids: [...r.uids.bySubscription]
      .map(([id, m]) => [id, [...m].map(([box, uids]) => [box, [...uids].sort((a, b) => a - b)])])
      .sort(),
    uidValidity: [...r.uids.uidValidity].sort(),
  };
}

describe('the lean reader against Dovecot', () => {
  test('returns exactly what imapflow returns: UIDs, \\Seen and header bytes, in every folder', async () => {
    for (const path of Object.keys(boxes)) {
      const expected = await viaImapflow(path);
      assert.ok(expected.length > 0, path);
      assert.deepEqual(await viaLean(path), expected, path);
    }
    assert.deepEqual(await viaLean('INBOX', 'starttls'), await viaImapflow('INBOX'), 'over STARTTLS');
  });

  test('runScan through the lean reader gives the result runScan gives through imapflow', async () => {
    const lean = await scan(true);
    const flow = await scan(false);
    assert.equal(lean.r.ok && lean.r.reader, 'lean');
    assert.equal(flow.r.ok && flow.r.reader, 'imapflow');
    assert.deepEqual(comparable(lean.r), comparable(flow.r));
    const total = Object.values(boxes).reduce((n, list) => n + list.length, 0);
    assert.equal(comparable(lean.r).scanned, total);
    // every subscription sent along the way is the final one or an earlier state of it
    const finalIds = new Set(comparable(lean.r).subscriptions.map((s) => s.id));
    assert.ok(lean.sent.length > 0 && lean.sent.every((s) => finalIds.has(s.id)));
  });

  test('with a date, the lean connection fetches the UIDs imapflow found, with the same result', async () => {
    const since = new Date(now.getTime() - 120 * 86_400_000);
    const lean = await scan(true, { since });
    const flow = await scan(false, { since });
    assert.equal(lean.r.ok && lean.r.reader, 'lean');
    assert.deepEqual(comparable(lean.r), comparable(flow.r));
    assert.ok(comparable(lean.r).scanned < comparable(await scan(false).then((x) => x.r)).scanned);
  });

  test('nothing is marked read by either path', async () => {
    const unseen = () =>
      withImapflow(async (c) => {
        const status = await c.status('INBOX', { unseen: true, messages: true });
        assert.ok(status);
        return status.unseen;
      });
    const before = await unseen();
    await scan(true);
    await scan(false);
    assert.equal(await unseen(), before);
  });
});

describe('when the second connection is refused', () => {
  let single: Dovecot;
  before(async () => {
    single = await startDovecot({
      users: [{ user: USER, password: PASSWORD, mailboxes: { INBOX: boxes.INBOX ?? [] } }],
      maxUserConnections: 1,
    });
  });
  after(async () => {
    await single?.stop();
  });

  test('the scan falls back to imapflow and still succeeds, with the same result', async () => {
    const g = createOutboundGuard({ allowHosts: [`127.0.0.1:${single.imapsPort}`] });
    const run = (leanFetch: boolean) =>
      runScan(
        { host: '127.0.0.1', port: single.imapsPort, tls: 'implicit' },
        { user: USER, password: PASSWORD },
        g,
        { matchService: () => null, leanFetch },
        { progress: () => {}, subscription: () => {}, started: async () => true },
      );
    const fallback = await run(true);
    const flow = await run(false);
    await g.close();
    assert.ok(fallback.ok, JSON.stringify(fallback));
    assert.equal(fallback.reader, 'imapflow');
    assert.deepEqual(comparable(fallback), comparable(flow));
  });
});
