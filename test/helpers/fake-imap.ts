/**
 * Scripted IMAP servers on loopback for the lean reader's hostile tests: TLS with the test CA
 * (or plain, for STARTTLS), a greeting, and a handler that sees every client line (literals the
 * client sends after a '+' are consumed). Every server made here is closed by closeFakeServers().
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import tls from 'node:tls';
import { examine, signIn } from '../../src/mailbox/lean-commands.ts';
import { connectLean, type LeanImap } from '../../src/mailbox/lean-imap.ts';
import { createOutboundGuard } from '../../src/outbound/guard.ts';
import { certPath, keyPath } from './tls-ca.ts';

const servers = new Set<FakeServer>();

export type Handler = (line: string, s: tls.TLSSocket | net.Socket, raw: Buffer) => void;

export interface FakeServer {
  port: number;
  received: Buffer[];
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Reads client lines (and the literals the client sends after a '+'), hands each line to `on`. */
function lines(s: net.Socket, received: Buffer[], on: Handler): void {
  let buf = Buffer.alloc(0);
  let literal = 0;
  s.on('data', (d: Buffer) => {
    received.push(d);
    buf = Buffer.concat([buf, d]);
    for (;;) {
      if (literal > 0) {
        if (buf.length < literal) return;
        buf = buf.subarray(literal);
        literal = 0;
      }
      const nl = buf.indexOf(10);
      if (nl < 0) return;
      const raw = buf.subarray(0, nl + 1);
      const line = raw.toString('latin1').replace(/\r?\n$/, '');
      buf = buf.subarray(nl + 1);
      const m = /\{(\d+)(\+?)\}$/.exec(line);
      if (m) {
        literal = Number(m[1]);
        if (!m[2]) s.write('+ go ahead\r\n');
      }
      on(line, s, raw);
    }
  });
  s.on('error', () => {});
}

export async function fakeServer(
  on: Handler,
  opts: { greeting?: string; plain?: boolean; onConnect?: (s: net.Socket) => void } = {},
): Promise<FakeServer> {
  const received: Buffer[] = [];
  let closedResolve: () => void = () => {};
  const closed = new Promise<void>((r) => {
    closedResolve = r;
  });
  const sockets = new Set<net.Socket>();
  const onSocket = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => {
      sockets.delete(s);
      closedResolve();
    });
    if (opts.onConnect) opts.onConnect(s);
    else {
      s.write(`${opts.greeting ?? '* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=PLAIN LITERAL+] fake ready'}\r\n`);
      lines(s, received, on);
    }
  };
  const server = opts.plain
    ? net.createServer(onSocket)
    : tls.createServer({ key: readFileSync(keyPath), cert: readFileSync(certPath) }, onSocket);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const fake: FakeServer = {
    port: (server.address() as AddressInfo).port,
    received,
    closed,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
  servers.add(fake);
  return fake;
}

/** A standard session up to EXAMINE; `fetch` answers the FETCH command. */
export function imapSession(fetch: (tag: string, s: net.Socket) => void): Handler {
  return (line, s) => {
    const [tag, cmd] = line.split(' ');
    if (cmd === 'AUTHENTICATE' || cmd === 'LOGIN') s.write(`${tag} OK signed in\r\n`);
    else if (cmd === 'EXAMINE')
      s.write(`* 3 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n* OK [UIDNEXT 4] ok\r\n${tag} OK [READ-ONLY] done\r\n`);
    else if (cmd === 'UID') fetch(tag!, s);
    else if (tag) s.write(`${tag} BAD unknown\r\n`);
  };
}

export const TIMEOUTS = { connectMs: 3000, socketMs: 3000 };
export const guardFor = (port: number) => createOutboundGuard({ allowHosts: [`127.0.0.1:${port}`] });

/** Connects the lean reader to `server` (the guard allows only its port). */
export async function open(server: FakeServer, tlsMode: 'implicit' | 'starttls' = 'implicit', signal?: AbortSignal) {
  const guard = guardFor(server.port);
  const c = await connectLean({ host: '127.0.0.1', port: server.port, tls: tlsMode }, guard, TIMEOUTS, signal);
  await guard.close();
  return c;
}

/** Connected, signed in and INBOX examined (3 messages, UIDVALIDITY 7, UIDNEXT 4). */
export async function selected(server: FakeServer, signal?: AbortSignal): Promise<LeanImap> {
  const c = await open(server, 'implicit', signal);
  assert.ok(c.ok, 'connected');
  assert.deepEqual(await signIn(c.conn, { user: 'u@x.example', password: 'pw' }), { ok: true });
  const box = await examine(c.conn, 'INBOX');
  assert.ok(box.ok);
  assert.deepEqual([box.exists, box.uidValidity, box.uidNext], [3, 7n, 4]);
  return c.conn;
}

/** One FETCH answer of the shape the reader asks for. */
export const msg = (seq: number, uid: number, h: string) =>
  `* ${seq} FETCH (UID ${uid} FLAGS () BODY[HEADER.FIELDS (FROM)] {${h.length}}\r\n${h})\r\n`;

/** Closes every server made by fakeServer (tests call it in `after`). */
export async function closeFakeServers(): Promise<void> {
  for (const s of servers) await s.close();
  servers.clear();
}
