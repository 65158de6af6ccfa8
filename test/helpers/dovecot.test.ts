/**
 * Sanity checks for the test infrastructure itself: the private Dovecot (dovecot.ts), the
 * test CA (tls-ca.ts) and the mailbox generator (fixtures/mail-generator.ts). A real
 * IMAP client (imapflow) talks to a real Dovecot with certificate checks on.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import tls from 'node:tls';
import { ImapFlow, type ImapFlowOptions } from 'imapflow';
import PostalMime from 'postal-mime';
import { byMailbox, type GeneratedMessage, generateMailbox } from '../fixtures/mail-generator.ts';
import { type Dovecot, startDovecot } from './dovecot.ts';
import { trustTestCa } from './tls-ca.ts';

const NOW = new Date('2026-11-01T00:00:00Z');

async function connect(opts: Partial<ImapFlowOptions> & Pick<ImapFlowOptions, 'host' | 'port'>): Promise<ImapFlow> {
  const client = new ImapFlow({
    secure: true,
    auth: { user: 'alice@example.test', pass: 'correct horse' },
    tls: { rejectUnauthorized: true },
    logger: false,
    disableAutoIdle: true,
    ...opts,
  });
  client.on('error', () => {}); // before connect: an unhandled socket error would crash the run
  try {
    await client.connect();
  } catch (err) {
    client.close();
    throw err;
  }
  return client;
}

/** STATUS (MESSAGES) of a mailbox. */
async function count(client: ImapFlow, path = 'INBOX'): Promise<number> {
  const status = await client.status(path, { messages: true });
  assert.ok(status, `no STATUS for ${path}`);
  return status.messages ?? -1;
}

describe('private Dovecot', () => {
  const mailbox = generateMailbox({ seed: 11, lists: 14, messagesPerList: [2, 9], plain: 20, nasty: true, now: NOW });
  const boxes = byMailbox(mailbox.messages);
  let mail: Dovecot;

  before(async () => {
    trustTestCa();
    mail = await startDovecot({
      users: [
        { user: 'alice@example.test', password: 'correct horse', mailboxes: boxes },
        { user: 'bob@example.test', password: 'p:w "odd" ü' },
      ],
    });
  });
  after(() => mail?.stop());

  test('implicit TLS with certificate checks on: every message, in order, byte for byte, with its \\Seen flag', async () => {
    const client = await connect({ host: mail.host, port: mail.imapsPort });
    try {
      const list = await client.list();
      const special = Object.fromEntries(list.filter((m) => m.specialUse).map((m) => [m.specialUse, m.path]));
      assert.deepEqual(special, {
        '\\Inbox': 'INBOX', // imapflow's own marker
        '\\Archive': 'Archive',
        '\\Junk': 'Junk',
        '\\Sent': 'Sent',
        '\\Trash': 'Trash',
      });
      for (const [path, expected] of Object.entries(boxes)) {
        const lock = await client.getMailboxLock(path, { readOnly: true });
        try {
          const got: { uid: number; seen: boolean; source: Buffer; date: Date }[] = [];
          for await (const m of client.fetch('1:*', { uid: true, flags: true, source: true, internalDate: true })) {
            got.push({
              uid: m.uid,
              seen: m.flags?.has('\\Seen') ?? false,
              source: m.source!,
              date: new Date(m.internalDate!),
            });
          }
          got.sort((a, b) => a.uid - b.uid);
          assert.equal(got.length, expected.length, path);
          assert.equal(got.filter((m) => m.seen).length, expected.filter((m) => m.seen).length, path);
          for (const [i, m] of got.entries()) {
            assert.equal(m.seen, expected[i]!.seen, `${path} #${i} \\Seen`);
            assert.ok(m.source.equals(expected[i]!.raw), `${path} #${i} bytes`);
            assert.equal(m.date.getTime(), expected[i]!.date.getTime(), `${path} #${i} INTERNALDATE`);
          }
        } finally {
          lock.release();
        }
      }
    } finally {
      await client.logout();
    }
  });

  test('STARTTLS on the plain port', async () => {
    const client = await connect({ host: mail.host, port: mail.imapPort, secure: false, doSTARTTLS: true });
    const n = await count(client);
    await client.logout();
    assert.equal(n, boxes.INBOX!.length);
    assert.match(
      await mail.logs(),
      /Login: user=<alice@example\.test>, method=PLAIN, rip=127\.0\.0\.1, lip=127\.0\.0\.1, mpid=\d+, TLS/,
    );
  });

  test('a certificate from another CA is refused (checks are really on)', async () => {
    await assert.rejects(
      connect({
        host: mail.host,
        port: mail.imapsPort,
        tls: { rejectUnauthorized: true, ca: tls.rootCertificates[0] },
      }),
      (err: Error & { code?: string }) => /UNABLE_TO_VERIFY|SELF_SIGNED|CERT/.test(String(err.code)),
    );
  });

  test('a wrong password fails as an authentication error, quickly', async () => {
    for (let i = 0; i < 3; i++) {
      // Repeated failures: anvil's auth penalty would make the 2nd and 3rd slow if it were on.
      const t0 = performance.now();
      await assert.rejects(
        connect({ host: mail.host, port: mail.imapsPort, auth: { user: 'alice@example.test', pass: 'wrong' } }),
        (err: Error & { authenticationFailed?: boolean }) => err.authenticationFailed === true,
      );
      assert.ok(performance.now() - t0 < 2000, `attempt ${i + 1} took ${Math.round(performance.now() - t0)} ms`);
    }
  });

  test('any password bytes work, and deliver() adds mail to a running server (new folders too)', async () => {
    const bob = { user: 'BOB@example.test', pass: 'p:w "odd" ü' };
    const client = await connect({ host: mail.host, port: mail.imapsPort, auth: bob });
    const more = mailbox.messages.slice(0, 3);
    try {
      assert.equal(await count(client), 0);
      await mail.deliver('bob@example.test', 'INBOX', more);
      await mail.deliver('bob@example.test', 'Lists/Café', more.slice(0, 1));
      // Existing folders: the next STATUS/NOOP/SELECT sees the new mail.
      assert.equal(await count(client), 3);
    } finally {
      await client.logout();
    }
    // New folders: Dovecot's mailbox list index shows them to the next session.
    const next = await connect({ host: mail.host, port: mail.imapsPort, auth: bob });
    try {
      const paths = (await next.list()).map((m) => m.path);
      assert.ok(paths.includes('Lists/Café'), paths.join(', '));
      const lock = await next.getMailboxLock('Lists/Café');
      try {
        const one = await next.fetchOne('*', { source: true });
        assert.ok(one && one.source!.equals(more[0]!.raw));
      } finally {
        lock.release();
      }
    } finally {
      await next.logout();
    }
  });
});

describe('private Dovecot, more instances', () => {
  before(() => trustTestCa());

  test('instances run concurrently; refusePlaintextLogin gives a server that wants STARTTLS first', async () => {
    const messages = generateMailbox({
      seed: 5,
      lists: 3,
      messagesPerList: [2, 3],
      plain: 2,
      nasty: false,
      now: NOW,
    }).messages;
    const users = (password: string) => [{ user: 'alice@example.test', password, mailboxes: { INBOX: messages } }];
    const [a, b] = await Promise.all([
      startDovecot({ users: users('correct horse') }),
      startDovecot({ users: users('correct horse'), refusePlaintextLogin: true }),
    ]);
    try {
      assert.notEqual(a.dir, b.dir);
      assert.equal(new Set([a.imapPort, a.imapsPort, b.imapPort, b.imapsPort]).size, 4);
      const [ca, cb] = await Promise.all([
        connect({ host: a.host, port: a.imapsPort }),
        connect({ host: b.host, port: b.imapPort, secure: false, doSTARTTLS: true }),
      ]);
      for (const c of [ca, cb]) {
        assert.equal(await count(c), messages.length);
        await c.logout();
      }
      // Before STARTTLS, b advertises LOGINDISABLED and refuses LOGIN; a (plain 127.0.0.1) does not.
      assert.match(await greeting(b.host, b.imapPort), /LOGINDISABLED/);
      assert.doesNotMatch(await greeting(a.host, a.imapPort), /LOGINDISABLED/);
      await assert.rejects(
        connect({ host: b.host, port: b.imapPort, secure: false, doSTARTTLS: false }),
        (err: Error & { authenticationFailed?: boolean }) => err.authenticationFailed === true,
      );
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  test('kill() makes an open connection fail; restart() serves the same mail again', async () => {
    const messages = generateMailbox({
      seed: 6,
      lists: 2,
      messagesPerList: [2, 2],
      plain: 1,
      nasty: false,
      now: NOW,
    }).messages;
    const d = await startDovecot({
      users: [{ user: 'alice@example.test', password: 'correct horse', mailboxes: { INBOX: messages } }],
    });
    try {
      const client = await connect({ host: d.host, port: d.imapsPort });
      await client.mailboxOpen('INBOX', { readOnly: true });
      const closed = new Promise<void>((r) => client.once('close', () => r()));
      const t0 = performance.now();
      await d.kill();
      await closed;
      assert.ok(performance.now() - t0 < 2000);
      await assert.rejects(client.noop());
      assert.equal(client.usable, false);
      await assert.rejects(
        connect({ host: d.host, port: d.imapsPort }),
        (err: Error & { code?: string }) => err.code === 'ECONNREFUSED',
      );

      await d.deliver('alice@example.test', 'INBOX', messages.slice(0, 1)); // while down
      await d.restart();
      const again = await connect({ host: d.host, port: d.imapsPort });
      assert.equal(await count(again), messages.length + 1);
      await again.logout();
    } finally {
      await d.stop();
    }
  });
});

/** The untagged greeting line of a plain IMAP port. */
function greeting(host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host, port });
    let buf = '';
    s.on('error', reject);
    s.on('data', (d) => {
      buf += d;
      if (buf.includes('\r\n')) {
        s.end('a LOGOUT\r\n');
        resolve(buf.split('\r\n')[0]!);
      }
    });
  });
}

describe('mail generator', () => {
  const opts = { seed: 99, lists: 24, messagesPerList: [1, 10] as [number, number], plain: 30, nasty: true, now: NOW };

  test('the same seed gives the same bytes; another seed does not', () => {
    const a = generateMailbox(opts);
    const b = generateMailbox(opts);
    assert.equal(a.messages.length, b.messages.length);
    for (const [i, m] of a.messages.entries()) {
      assert.ok(m.raw.equals(b.messages[i]!.raw), `message ${i}`);
      assert.equal(m.seen, b.messages[i]!.seen);
      assert.equal(m.date.getTime(), b.messages[i]!.date.getTime());
    }
    assert.deepEqual(a.truth, b.truth);
    const c = generateMailbox({ ...opts, seed: 100 });
    assert.ok(!c.messages[0]!.raw.equals(a.messages[0]!.raw));
  });

  test('the truth agrees with the messages', async () => {
    const { messages, truth } = generateMailbox(opts);
    // Keys derived here independently of the generator (and of src/): List-Id with a dot, else From.
    const groups = new Map<string, GeneratedMessage[]>();
    for (const m of messages) {
      const email = await PostalMime.parse(m.raw);
      const listIdValue = email.headers.find((h) => h.key === 'list-id')?.value ?? '';
      const id = /<([^<>]*\.[^<>]*)>\s*$/.exec(listIdValue)?.[1]?.toLowerCase();
      const key = id ? `list:${id}` : `from:${email.from?.address?.toLowerCase()}`;
      assert.equal(key, m.key, m.raw.subarray(0, 2000).toString());
      const list = groups.get(key) ?? [];
      groups.set(key, list);
      list.push(m);
    }
    assert.equal(groups.size, truth.lists.length + truth.ignored.length);
    assert.equal(messages.length, truth.total);
    for (const t of truth.lists) {
      const ms = groups.get(t.key)!;
      assert.equal(t.count, ms.length, t.key);
      assert.equal(t.seen, ms.filter((m) => m.seen).length, t.key);
      assert.ok(t.http.length + t.mailto.length > 0, t.key);
      // The newest message carries every URI of the truth (folding whitespace removed).
      const newest = ms.at(-1)!;
      assert.equal(newest.date.getTime(), t.lastDate.getTime());
      const head = newest.raw
        .toString('latin1')
        .split('\r\n\r\n')[0]!
        .replace(/\r\n[ \t]+/g, '');
      for (const uri of [...t.http, ...t.mailto]) assert.ok(head.includes(uri), `${t.key}: ${uri.slice(0, 80)}`);
      if (t.oneClick) assert.match(head, /^list-unsubscribe-post:\s*list-unsubscribe=one-click\s*$/im, t.key);
    }
    for (const g of truth.ignored) assert.equal(groups.get(g.key)!.length, g.count, g.key);
    // Oldest first, all within ~18 months before `now`.
    for (const [i, m] of messages.entries()) {
      if (i > 0) assert.ok(m.date >= messages[i - 1]!.date);
      assert.ok(m.date < NOW && NOW.getTime() - m.date.getTime() < 550 * 86_400_000);
    }
    // The catalog senders and the nasty cases are there.
    const services = new Set(truth.lists.map((t) => t.service));
    for (const s of ['netflix', 'spotify', 'hulu', 'disney-plus']) assert.ok(services.has(s), s);
    const quirks = new Set(messages.flatMap((m) => m.quirks));
    for (const q of ['javascript-uri', 'no-brackets', 'long-lines', '8bit-subject', 'no-date', 'future-date']) {
      assert.ok(quirks.has(q), q);
    }
    assert.ok(truth.ignored.some((g) => g.reason === 'no-usable-method' && g.key === 'list:promo.sketchy.example.net'));
  });

  test('2000 messages: generated and written into a running Dovecot quickly', async () => {
    const t0 = performance.now();
    const big = generateMailbox({ seed: 1, lists: 120, messagesPerList: [10, 20], plain: 200, nasty: true, now: NOW });
    const genMs = performance.now() - t0;
    const inbox = big.messages.slice(0, 2000);
    const d = await startDovecot({
      users: [{ user: 'alice@example.test', password: 'x', mailboxes: { INBOX: inbox } }],
    });
    try {
      const client = await connect({
        host: d.host,
        port: d.imapsPort,
        auth: { user: 'alice@example.test', pass: 'x' },
      });
      assert.equal(await count(client), 2000);
      await client.logout();
      // Generous bounds; typical here: generate ~0.3 s, write ~0.05 s (tmpfs), start ~0.1 s.
      assert.ok(genMs < 5000, `generate ${genMs} ms`);
      assert.ok(d.timings.writeMs < 5000 && d.timings.startMs < 5000, JSON.stringify(d.timings));
    } finally {
      await d.stop();
    }
  });
});
