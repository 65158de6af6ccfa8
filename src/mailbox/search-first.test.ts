/**
 * Search first, then fetch (search-first.ts): against a real Dovecot the scan reports exactly
 * what fetching every message reports — messages read per folder, subscriptions, read rates,
 * UIDs — while Dovecot sends fewer bytes; against scripted servers, a refused SEARCH and a
 * search that misses list mail both end with every message fetched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { byMailbox, generateMailbox } from '../../test/fixtures/mail-generator.ts';
import { type Dovecot, startDovecot } from '../../test/helpers/dovecot.ts';
import { closeFakeServers, fakeServer, type Handler, open } from '../../test/helpers/fake-imap.ts';
import { trustTestCa } from '../../test/helpers/tls-ca.ts';
import { createOutboundGuard, type OutboundGuard } from '../outbound/guard.ts';
import { signIn } from './lean-commands.ts';
import { runScan, type ScanProgress, type ScanResult } from './scan.ts';
import { DEFAULT_SCAN_CAPS } from './scan-caps.ts';
import { readMailbox } from './scan-read.ts';
import { createTally } from './scan-tally.ts';
import type { Subscription } from './types.ts';

const PASSWORD = 'pw';
const USER = 'search@example.test';
const now = new Date('2026-11-22T00:00:00Z');
const mail = generateMailbox({ seed: 23, lists: 30, messagesPerList: [4, 12], plain: 180, nasty: false, now });
const boxes = byMailbox(mail.messages.sort((a, b) => a.date.getTime() - b.date.getTime()));

describe('search first against Dovecot', () => {
  let dovecot: Dovecot;
  let guard: OutboundGuard;
  before(async () => {
    trustTestCa();
    dovecot = await startDovecot({ users: [{ user: USER, password: PASSWORD, mailboxes: boxes }] });
    guard = createOutboundGuard({ allowHosts: [`127.0.0.1:${dovecot.imapsPort}`] });
  });
  after(async () => {
    await guard?.close();
    await dovecot?.stop();
  });

  let logSeen = 0;
  /** Bytes Dovecot sent USER's sessions that ended since the last call (its logout line's out=). */
  async function bytesSent(): Promise<number> {
    for (let i = 0; i < 50; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const fresh = (await dovecot.logs()).slice(logSeen);
      const outs = [...fresh.matchAll(/imap\(([^)]+)\)[^\n]*? in=\d+ out=(\d+)/g)].filter((m) => m[1] === USER);
      if (outs.length >= 2) {
        logSeen += fresh.length;
        return outs.reduce((n, m) => n + Number(m[2]), 0);
      }
    }
    throw new Error('no logout lines');
  }

  const scan = async (searchFirst: boolean) => {
    const progress: ScanProgress[] = [];
    const r = await runScan(
      { host: '127.0.0.1', port: dovecot.imapsPort, tls: 'implicit' },
      { user: USER, password: PASSWORD },
      guard,
      { matchService: () => null, mailboxes: ['INBOX', 'archive', 'junk'], searchFirst, searchWindow: 40 },
      { progress: (p) => progress.push(p), subscription: () => {}, started: async () => true },
    );
    return { r, progress, bytes: await bytesSent() };
  };

  const comparable = (r: ScanResult) => {
    assert.ok(r.ok);
    return {
      scanned: r.scanned,
      mailboxes: r.mailboxes,
      subscriptions: r.subscriptions,
      capped: r.capped,
      reader: r.reader,
      uids: [...r.uids.bySubscription].map(([id, m]) => [id, [...m].map(([box, u]) => [box, [...u].sort()])]).sort(),
    };
  };

  test('reports exactly what fetching every message reports, with fewer bytes from the server', async () => {
    const whole = await scan(false);
    const searched = await scan(true);
    assert.deepEqual(comparable(searched.r), comparable(whole.r));
    assert.equal(comparable(searched.r).scanned, mail.messages.length);
    assert.ok(
      searched.bytes < whole.bytes * 0.9,
      `bytes sent: search first ${searched.bytes}, every message ${whole.bytes}`,
    );
    // progress never goes back and ends at the total
    const done = searched.progress.map((p) => p.done);
    assert.deepEqual(
      done,
      [...done].sort((a, b) => a - b),
    );
    assert.ok(done.at(-1)! <= mail.messages.length);
  });

  test('updates go out per progress interval and per folder, not per search window; the last one of each is final', async () => {
    const updates = new Map<string, Subscription[]>();
    const r = await runScan(
      { host: '127.0.0.1', port: dovecot.imapsPort, tls: 'implicit' },
      { user: USER, password: PASSWORD },
      guard,
      // windows of 20 messages: INBOX is read in more than ten of them
      { matchService: () => null, mailboxes: ['INBOX', 'archive', 'junk'], searchWindow: 20, progressMs: 60_000 },
      {
        progress: () => {},
        subscription: (s) => updates.set(s.id, [...(updates.get(s.id) ?? []), s]),
        started: async () => true,
      },
    );
    await bytesSent(); // this scan's logout lines, so the next test's count starts after them
    assert.ok(r.ok);
    assert.equal(updates.size, r.subscriptions.length);
    for (const s of r.subscriptions) {
      const sent = updates.get(s.id)!;
      assert.deepEqual(sent.at(-1), s, 'the last update is the final state');
      // at most: the scan's first subscription at once, and per folder its first window and its end
      const folders = r.uids.bySubscription.get(s.id)!.size;
      assert.ok(sent.length <= 1 + 2 * folders, `${s.list_key}: ${sent.length} updates from ${folders} folders`);
    }
  });
});

describe('search first against scripted servers', () => {
  before(() => trustTestCa());
  after(closeFakeServers);

  const HEADER_LIST = 'From: news@list.example\r\nList-Unsubscribe: <https://list.example/u>\r\n\r\n';
  const HEADER_PLAIN = 'From: friend@example.net\r\n\r\n';
  /** 10 messages, UIDs 1–10; the even ones are list mail. */
  const header = (uid: number) => (uid % 2 === 0 ? HEADER_LIST : HEADER_PLAIN);
  const fetchAnswer = (set: string) => {
    let out = '';
    for (const part of set.split(',')) {
      const [a, b = a] = part.split(':').map(Number) as [number, number?];
      for (let uid = a; uid <= (b ?? a) && uid <= 10; uid++) {
        const h = header(uid);
        out += `* ${uid} FETCH (UID ${uid} FLAGS () BODY[HEADER.FIELDS (FROM LIST-UNSUBSCRIBE)] {${h.length}}\r\n${h})\r\n`;
      }
    }
    return out;
  };

  /** A session with INBOX of 10 messages; `search` answers a UID SEARCH (tag, low, high UID). */
  const session =
    (search: (tag: string, lo: number, hi: number) => string, fetched: string[]): Handler =>
    (line, s) => {
      const [tag, cmd, sub, set] = line.split(' ');
      if (cmd === 'AUTHENTICATE' || cmd === 'LOGIN') s.write(`${tag} OK signed in\r\n`);
      else if (cmd === 'EXAMINE')
        s.write(`* 10 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n* OK [UIDNEXT 11] ok\r\n${tag} OK [READ-ONLY] done\r\n`);
      else if (cmd === 'UID' && sub === 'SEARCH') {
        const [lo, hi] = line.split(' ')[4]!.split(':').map(Number) as [number, number];
        s.write(search(tag!, lo, hi));
      } else if (cmd === 'UID' && sub === 'FETCH') {
        fetched.push(set!);
        s.write(`${fetchAnswer(set!)}${tag} OK done\r\n`);
      } else if (tag) s.write(`${tag} BAD unknown\r\n`);
    };

  async function read(search: (tag: string, lo: number, hi: number) => string) {
    const fetched: string[] = [];
    const server = await fakeServer(session(search, fetched));
    const c = await open(server);
    assert.ok(c.ok);
    assert.deepEqual(await signIn(c.conn, { user: 'u@x.example', password: 'pw' }), { ok: true });
    const progress: number[] = [];
    const tally = createTally(
      { matchService: () => null, progressMs: 1000, dedupe: false, caps: DEFAULT_SCAN_CAPS },
      { progress: (p) => progress.push(p.done), subscription: () => {} },
    );
    try {
      const how = await readMailbox(
        { path: 'INBOX', junk: false },
        {
          // imapflow is never reached while the lean connection reads the folder
          client: null as unknown as Parameters<typeof readMailbox>[1]['client'],
          lean: c.conn,
          tally,
          since: undefined,
          batchSize: 2,
          signal: new AbortController().signal,
          caps: DEFAULT_SCAN_CAPS,
          searchWindow: 2,
        },
      );
      return { how, fetched, scanned: tally.scanned, subscriptions: tally.subscriptions().length };
    } finally {
      tally.stop();
      c.conn.close();
    }
  }

  const evens = (lo: number, hi: number) =>
    Array.from({ length: hi - lo + 1 }, (_, i) => lo + i).filter((u) => u % 2 === 0 && u <= 10);

  test('a server that answers the search: only list mail is fetched after the first window', async () => {
    const r = await read((tag, lo, hi) => `* SEARCH ${evens(lo, hi).join(' ')}\r\n${tag} OK done\r\n`);
    assert.equal(r.how, 'lean');
    assert.equal(r.scanned, 10);
    assert.ok(r.subscriptions >= 1);
    const after = r.fetched.slice(1).join(',').split(/[,:]/).map(Number);
    assert.ok(
      after.every((u) => u % 2 === 0),
      `fetched after the first window: ${r.fetched.join(' ')}`,
    );
  });

  test('a server that refuses SEARCH HEADER: every message is fetched', async () => {
    const r = await read((tag) => `${tag} BAD [CANNOT] no header search here\r\n`);
    assert.equal(r.how, 'lean');
    assert.equal(r.scanned, 10);
    assert.equal(r.fetched.join(','), '1:2,3:4,5:6,7:8,9:10');
  });

  test('a search that misses list mail in the first window: the rest is fetched whole', async () => {
    const r = await read((tag) => `* SEARCH\r\n${tag} OK done\r\n`);
    assert.equal(r.how, 'lean');
    assert.equal(r.scanned, 10);
    const all = r.fetched
      .join(',')
      .split(',')
      .flatMap((p) => {
        const [a, b = a] = p.split(':').map(Number) as [number, number?];
        return Array.from({ length: (b ?? a) - a + 1 }, (_, i) => a + i);
      });
    assert.deepEqual(
      all.sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
  });
});
