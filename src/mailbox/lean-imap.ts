/**
 * A minimal IMAP client connection for the scan's hot FETCH (fetch-reader.ts); imapflow keeps
 * everything else. Same rules as imap-connect.ts: the host passes the outbound guard and the
 * socket goes to the address it checked; TLS verifies the certificate against the host name
 * (rejectUnauthorized is always true); STARTTLS is required when the endpoint says so, and
 * anything the server sends between its STARTTLS answer and the handshake is refused.
 *
 * Commands are tagged L1, L2…; several may be in flight (the FETCH sets are pipelined), and
 * untagged responses go to the oldest. Sign-in and EXAMINE are in lean-commands.ts. Every failure
 * is a value (LeanFailure), never a throw or a crash: socket errors, timeouts, a cancel, a tagged
 * answer to no command, limits hit by the tokenizer. The password is never in one.
 */
import net, { isIP } from 'node:net';
import tls from 'node:tls';
import type { OutboundGuard } from '../outbound/guard.ts';
import { describeImapError, type ImapFailureCode, type ImapTimeouts } from './imap-connect.ts';
import { createTokenizer, DEFAULT_LIMITS, ImapProtocolError, type ImapResponse } from './imap-tokenizer.ts';
import type { Endpoint } from './providers.ts';

export type LeanCode = ImapFailureCode | 'REFUSED' | 'PROTOCOL' | 'CLOSED' | 'ABORTED' | 'INTERNAL';
export type LeanFailure = { ok: false; code: LeanCode; message: string };
export type Tagged = { ok: true; status: 'OK' | 'NO' | 'BAD'; text: string } | LeanFailure;

export interface RunOptions {
  /** every untagged response while the command runs (the first of pipelined commands gets them) */
  onUntagged?: (r: ImapResponse) => void;
  /** a '+' continuation; the text after "+ " */
  onContinue?: (text: string) => void;
}

export interface LeanImap {
  readonly capabilities: ReadonlySet<string>;
  /** Sends one command (tag added, CRLF added) and resolves with its tagged answer or the failure. */
  run(command: string | Buffer, opts?: RunOptions): Promise<Tagged>;
  /** Raw bytes, e.g. an answer to a '+' continuation. */
  write(data: string | Buffer): void;
  /**
   * Reads nothing more until the event loop has gone round once (the chunk in hand is still
   * finished): lets the process's other sockets in between batches of a long FETCH.
   */
  yieldOnce(): void;
  /** Destroys the socket (a LOGOUT would only cost a round trip); pending commands fail with CLOSED. */
  close(): void;
}

export const fail = (code: LeanCode, message: string): LeanFailure => ({ ok: false, code, message });

export async function connectLean(
  endpoint: Endpoint,
  guard: OutboundGuard,
  timeouts: ImapTimeouts,
  signal?: AbortSignal,
): Promise<{ ok: true; conn: LeanImap } | LeanFailure> {
  const where = `${endpoint.host}:${endpoint.port}`;
  const resolved = await guard.resolve(endpoint.host, endpoint.port);
  if (!resolved.ok) return fail(resolved.reason === 'dns' ? 'CONNECT_FAILED' : 'HOST_NOT_ALLOWED', `${where} refused`);
  if (signal?.aborted) return fail('ABORTED', 'cancelled');
  const servername = isIP(endpoint.host) ? undefined : endpoint.host;
  const secure = { servername, rejectUnauthorized: true, minVersion: 'TLSv1.2' as const };
  const caps = new Set<string>();
  const pending: { tag: string; opts: RunOptions; done: (t: Tagged) => void; starttls?: boolean }[] = [];
  let dead: LeanFailure | null = null;
  let seq = 0;
  let greeted: ((r: ImapResponse | LeanFailure) => void) | null = null;
  let upgrading = false;
  let socket: net.Socket;

  const die = (f: LeanFailure) => {
    if (dead) return;
    dead = f;
    clearTimeout(connectTimer);
    signal?.removeEventListener('abort', onAbort);
    socket.destroy();
    greeted?.(f);
    for (const p of pending.splice(0)) p.done(f);
  };
  const onAbort = () => die(fail('ABORTED', 'cancelled'));
  signal?.addEventListener('abort', onAbort, { once: true });
  const connectTimer = setTimeout(() => die(fail('TIMEOUT', `${where} did not answer in time`)), timeouts.connectMs);

  function attach(s: net.Socket): void {
    socket = s;
    const tokenizer = createTokenizer(DEFAULT_LIMITS, dispatch);
    s.on('data', (chunk: Buffer) => {
      try {
        tokenizer.push(chunk);
        if (upgrading && tokenizer.pending() > 0) die(fail('PROTOCOL', 'data after the STARTTLS answer'));
      } catch (err) {
        die(err instanceof ImapProtocolError ? fail('PROTOCOL', err.message) : fail('INTERNAL', 'reader failed'));
      }
    });
    s.on('error', (err) => {
      const d = describeImapError(err, where);
      die(fail(d.code, d.message));
    });
    s.on('close', () => die(fail('CLOSED', 'the server closed the connection')));
    s.on('timeout', () => die(fail('TIMEOUT', `${where} stopped answering`)));
  }

  function dispatch(r: ImapResponse): void {
    if (dead) return;
    // RFC 3207 §4-style injection: nothing may follow the STARTTLS answer in clear text
    if (upgrading) {
      die(fail('PROTOCOL', 'data after the STARTTLS answer'));
      return;
    }
    const t = r.texts[0]!;
    if (t[0] === 0x2a) {
      // '*' then a digit: FETCH, EXISTS, EXPUNGE… straight to the command, no string made
      if (!(t[2]! >= 0x30 && t[2]! <= 0x39)) noteCapabilities(t.toString('latin1'));
      if (greeted) greeted(r);
      else pending[0]?.opts.onUntagged?.(r);
    } else if (t[0] === 0x2b) {
      pending[0]?.opts.onContinue?.(t.subarray(2).toString('latin1'));
    } else {
      const line = t.toString('latin1');
      const m = /^(\S+) (OK|NO|BAD)\b ?(.*)$/i.exec(line);
      const i = m ? pending.findIndex((p) => p.tag === m[1]) : -1;
      if (!m || i < 0) {
        die(fail('PROTOCOL', 'an answer to no command'));
        return;
      }
      const [p] = pending.splice(i, 1);
      const status = m[2]!.toUpperCase() as 'OK' | 'NO' | 'BAD';
      noteCapabilities(line);
      if (p!.starttls && status === 'OK') upgrading = true;
      p!.done({ ok: true, status, text: m[3]! });
    }
  }

  /** CAPABILITY data: "* CAPABILITY …", or a [CAPABILITY …] code in a greeting or a tagged OK. */
  function noteCapabilities(line: string): void {
    const m = /^(?:\* CAPABILITY |(?:\* (?:OK|PREAUTH)|\S+ OK) \[CAPABILITY )([^\]]*)/i.exec(line);
    if (!m) return;
    caps.clear();
    for (const c of m[1]!.trim().split(/\s+/)) caps.add(c.toUpperCase());
  }

  const write = (data: string | Buffer) => {
    if (!dead) socket.write(data);
  };
  function run(command: string | Buffer, opts: RunOptions = {}, starttls = false): Promise<Tagged> {
    if (dead) return Promise.resolve(dead);
    const tag = `L${++seq}`;
    return new Promise((done) => {
      pending.push({ tag, opts, done, starttls });
      write(typeof command === 'string' ? `${tag} ${command}\r\n` : Buffer.concat([Buffer.from(`${tag} `), command]));
    });
  }
  /** Resolves once the handshake is done and the certificate verified; false if the connection died. */
  const verified = (s: tls.TLSSocket) =>
    new Promise<boolean>((resolve) => {
      const check = () => resolve(!dead && s.authorized);
      if (s.authorized) check();
      else {
        s.once('secureConnect', check);
        s.once('close', check);
      }
    });

  const gotGreeting = new Promise<ImapResponse | LeanFailure>((resolve) => {
    greeted = (r) => {
      greeted = null;
      resolve(r);
    };
  });
  if (endpoint.tls === 'implicit') attach(tls.connect({ host: resolved.address, port: endpoint.port, ...secure }));
  else attach(net.connect({ host: resolved.address, port: endpoint.port }));
  const first = await gotGreeting;
  if ('ok' in first) return first;
  if (!/^\* OK\b/i.test(first.texts[0]!.toString('latin1'))) die(fail('REFUSED', 'the server did not greet with OK'));
  else if (endpoint.tls === 'starttls') {
    // RFC 8314 §3: credentials never go in clear text; STARTTLS is required, not opportunistic.
    const answer = await run('STARTTLS', {}, true);
    if (answer.ok && answer.status !== 'OK') die(fail('TLS_FAILED', `${where} refused STARTTLS`));
    if (!dead) {
      const plain = socket!;
      for (const e of ['data', 'close', 'timeout']) plain.removeAllListeners(e);
      caps.clear(); // RFC 3501 §6.2.1: what was said before TLS no longer counts
      upgrading = false;
      attach(tls.connect({ socket: plain, ...secure }));
    }
  }
  // Nothing is written on a TLS connection before its certificate has been verified.
  if (!dead && !(await verified(socket! as tls.TLSSocket))) die(fail('TLS_FAILED', `${where}: TLS failed`));
  if (!dead && caps.size === 0) await run('CAPABILITY');
  if (dead) return dead;
  clearTimeout(connectTimer);
  socket!.setTimeout(timeouts.socketMs);

  let yielding = false;
  const yieldOnce = () => {
    if (yielding || dead) return;
    yielding = true;
    socket.pause();
    setImmediate(() => {
      yielding = false;
      if (!dead) socket.resume();
    });
  };
  return { ok: true, conn: { capabilities: caps, run, write, yieldOnce, close: () => die(fail('CLOSED', 'closed')) } };
}
