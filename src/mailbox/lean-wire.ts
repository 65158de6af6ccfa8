/**
 * The state of one lean IMAP connection (lean-imap.ts): the socket it reads, the commands in
 * flight, the capabilities the server announced, and the first failure, after which it is dead
 * and every pending or later command resolves with that failure.
 *
 * Commands are tagged L1, L2…; several may be in flight (the FETCH sets are pipelined), and
 * untagged responses go to the oldest. Nothing here throws: socket errors, timeouts, a cancel,
 * a tagged answer to no command and the tokenizer's limits all become a LeanFailure.
 */
import type net from 'node:net';
import { describeImapError, type ImapFailureCode, type ImapTimeouts } from './imap-connect.ts';
import { createTokenizer, DEFAULT_LIMITS, ImapProtocolError, type ImapResponse } from './imap-tokenizer.ts';

export type LeanCode = ImapFailureCode | 'REFUSED' | 'PROTOCOL' | 'CLOSED' | 'ABORTED' | 'INTERNAL';
export type LeanFailure = { ok: false; code: LeanCode; message: string };
export type Tagged = { ok: true; status: 'OK' | 'NO' | 'BAD'; text: string } | LeanFailure;

export interface RunOptions {
  /** every untagged response while the command runs (the first of pipelined commands gets them) */
  onUntagged?: (r: ImapResponse) => void;
  /**
   * An untagged response word (upper case, e.g. "SEARCH") this command takes even while older
   * commands are in flight: a SEARCH pipelined behind FETCHes gets its `* SEARCH`, which no FETCH
   * answers. Only one command in flight may name a word (RFC 9051 §5.5: two SEARCHes would be
   * ambiguous).
   */
  claims?: string;
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

export interface Wire {
  readonly caps: Set<string>;
  readonly dead: LeanFailure | null;
  readonly socket: net.Socket;
  /** the server's first response (its greeting), or the failure that came first */
  readonly greeting: Promise<ImapResponse | LeanFailure>;
  /** Reads from `s` from now on (the plain socket first; the TLS one after STARTTLS). */
  attach(s: net.Socket): void;
  /** The plain socket, no longer read; what it said no longer counts (RFC 3501 §6.2.1). */
  handOverPlain(): net.Socket;
  run(command: string | Buffer, opts?: RunOptions, starttls?: boolean): Promise<Tagged>;
  die(f: LeanFailure): void;
  /** Connected: the connect deadline is off, the idle one on; the connection as callers use it. */
  open(socketMs: number): LeanImap;
}

export function createWire(where: string, timeouts: ImapTimeouts, signal: AbortSignal | undefined): Wire {
  const caps = new Set<string>();
  const pending: { tag: string; opts: RunOptions; done: (t: Tagged) => void; starttls?: boolean }[] = [];
  let dead: LeanFailure | null = null;
  let seq = 0;
  let greeted: ((r: ImapResponse | LeanFailure) => void) | null = null;
  let upgrading = false;
  let socket: net.Socket | undefined;

  const greeting = new Promise<ImapResponse | LeanFailure>((resolve) => {
    greeted = (r) => {
      greeted = null;
      resolve(r);
    };
  });
  const die = (f: LeanFailure) => {
    if (dead) return;
    dead = f;
    clearTimeout(connectTimer);
    signal?.removeEventListener('abort', onAbort);
    socket?.destroy();
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
      let to = pending[0];
      if (!(t[2]! >= 0x30 && t[2]! <= 0x39)) {
        const line = t.toString('latin1');
        noteCapabilities(line);
        // "* WORD …": a later command that claims the word gets it (RunOptions.claims)
        if (pending.length > 1) {
          const end = line.indexOf(' ', 2);
          const word = line.slice(2, end < 0 ? undefined : end).toUpperCase();
          to = pending.find((p) => p.opts.claims === word) ?? to;
        }
      }
      if (greeted) greeted(r);
      else to?.opts.onUntagged?.(r);
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
    if (!dead) socket!.write(data);
  };
  function run(command: string | Buffer, opts: RunOptions = {}, starttls = false): Promise<Tagged> {
    if (dead) return Promise.resolve(dead);
    const tag = `L${++seq}`;
    return new Promise((done) => {
      pending.push({ tag, opts, done, starttls });
      write(typeof command === 'string' ? `${tag} ${command}\r\n` : Buffer.concat([Buffer.from(`${tag} `), command]));
    });
  }

  return {
    caps,
    get dead() {
      return dead;
    },
    get socket() {
      return socket!;
    },
    greeting,
    attach,
    handOverPlain() {
      const plain = socket!;
      for (const e of ['data', 'close', 'timeout']) plain.removeAllListeners(e);
      caps.clear();
      upgrading = false;
      return plain;
    },
    run,
    die,
    open(socketMs) {
      clearTimeout(connectTimer);
      socket!.setTimeout(socketMs);
      let yielding = false;
      const yieldOnce = () => {
        if (yielding || dead) return;
        yielding = true;
        socket!.pause();
        setImmediate(() => {
          yielding = false;
          if (!dead) socket!.resume();
        });
      };
      return { capabilities: caps, run, write, yieldOnce, close: () => die(fail('CLOSED', 'closed')) };
    },
  };
}
