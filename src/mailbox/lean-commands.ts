/**
 * Commands on a lean connection (lean-imap.ts) before its FETCH: signing in and EXAMINE.
 *
 * Sign-in mirrors imapflow 2.1's choice, so a server that accepted imapflow's sign-in accepts
 * this one: an access token → AUTHENTICATE XOAUTH2; a password → AUTHENTICATE PLAIN when offered
 * (RFC 4616; the initial response inline with SASL-IR, RFC 4959, else after the '+'), else LOGIN
 * (RFC 3501 §6.2.3) with quoted strings, or literals for bytes a quoted string cannot carry.
 * EXAMINE (RFC 3501 §6.3.2) selects read-only, so nothing the scan does can set \Seen.
 * Results are values; the password appears in none of them.
 */
import type { ImapCredentials } from './imap-connect.ts';
import { fail, type LeanFailure, type LeanImap, type Tagged } from './lean-imap.ts';

export async function signIn(conn: LeanImap, creds: ImapCredentials): Promise<{ ok: true } | LeanFailure> {
  const caps = conn.capabilities;
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  let answer: Tagged;
  if (creds.accessToken) {
    if (!caps.has('AUTH=XOAUTH2')) return fail('REFUSED', 'no XOAUTH2');
    answer = await sasl(conn, 'XOAUTH2', b64(`user=${creds.user}\x01auth=Bearer ${creds.accessToken}\x01\x01`));
  } else if (caps.has('AUTH=PLAIN') && !/[\\/]/.test(creds.user)) {
    // imapflow, too, uses LOGIN for a user name with '\\' or '/' (Exchange shared mailboxes)
    answer = await sasl(conn, 'PLAIN', b64(`\0${creds.user}\0${creds.password ?? ''}`));
  } else if (!caps.has('LOGINDISABLED')) {
    const lit = caps.has('LITERAL+');
    const user = astring(creds.user, lit);
    const pass = astring(creds.password ?? '', lit);
    answer = await runWithLiterals(conn, [Buffer.from('LOGIN '), ...user, Buffer.from(' '), ...pass]);
  } else {
    return fail('REFUSED', 'no usable sign-in method');
  }
  if (!answer.ok) return answer;
  return answer.status === 'OK' ? { ok: true } : fail('AUTH_FAILED', 'the server refused the sign-in');
}

/** AUTHENTICATE with an initial response; a '+' after it (an error report) gets the empty answer that ends the exchange. */
function sasl(conn: LeanImap, mech: string, initial: string): Promise<Tagged> {
  let sent = conn.capabilities.has('SASL-IR');
  return conn.run(sent ? `AUTHENTICATE ${mech} ${initial}` : `AUTHENTICATE ${mech}`, {
    onContinue: () => {
      conn.write(sent ? '\r\n' : `${initial}\r\n`);
      sent = true;
    },
  });
}

/** RFC 3501 §4.3/§4.2: a quoted string for printable ASCII, else a literal (non-synchronizing with LITERAL+, RFC 7888). */
export function astring(s: string, literalPlus: boolean): Buffer[] {
  if (/^[\x20-\x7e]*$/.test(s)) return [Buffer.from(`"${s.replace(/["\\]/g, '\\$&')}"`)];
  const bytes = Buffer.from(s, 'utf8');
  return [Buffer.from(`{${bytes.length}${literalPlus ? '+' : ''}}\r\n`), bytes];
}

/** Sends the parts; after a synchronizing literal's "{n}\r\n" the rest waits for the server's '+'. */
function runWithLiterals(conn: LeanImap, parts: Buffer[]): Promise<Tagged> {
  const chunks: Buffer[][] = [[]];
  for (const p of parts) {
    chunks.at(-1)!.push(p);
    if (/\{\d+\}\r\n$/.test(p.toString('latin1'))) chunks.push([]);
  }
  chunks.at(-1)!.push(Buffer.from('\r\n'));
  let next = 1;
  return conn.run(Buffer.concat(chunks[0]!), {
    onContinue: () => {
      if (next < chunks.length) conn.write(Buffer.concat(chunks[next++]!));
    },
  });
}

export async function examine(
  conn: LeanImap,
  path: string,
): Promise<{ ok: true; exists: number; uidValidity: bigint | null; uidNext: number | null } | LeanFailure> {
  let exists = 0;
  let uidValidity: bigint | null = null;
  let uidNext: number | null = null;
  const answer = await conn.run(`EXAMINE "${mutf7(path).replace(/["\\]/g, '\\$&')}"`, {
    onUntagged: (r) => {
      const line = r.texts[0]!.toString('latin1');
      const e = /^\* (\d+) EXISTS$/i.exec(line);
      if (e) exists = Number(e[1]);
      const v = /^\* OK \[UIDVALIDITY (\d{1,10})\]/i.exec(line);
      if (v) uidValidity = BigInt(v[1]!);
      const n = /^\* OK \[UIDNEXT (\d{1,10})\]/i.exec(line);
      if (n) uidNext = Number(n[1]);
    },
  });
  if (!answer.ok) return answer;
  return answer.status === 'OK' ? { ok: true, exists, uidValidity, uidNext } : fail('REFUSED', 'EXAMINE refused');
}

/**
 * The UID of the message at sequence number `seq` in the selected mailbox (RFC 3501 §6.4.5
 * `FETCH <seq> (UID)`): where the newest `n` messages start, since sequence numbers and UIDs rise
 * together (§2.3.1.1). null when the server does not say.
 */
export async function uidAt(conn: LeanImap, seq: number): Promise<number | null> {
  let uid: number | null = null;
  const answer = await conn.run(`FETCH ${seq} (UID)`, {
    onUntagged: (r) => {
      const m = /^\* (\d+) FETCH \(.*\bUID (\d{1,10})\b/i.exec(r.texts[0]!.toString('latin1'));
      if (m && Number(m[1]) === seq) uid = Number(m[2]);
    },
  });
  return answer.ok && answer.status === 'OK' ? uid : null;
}

/** RFC 3501 §5.1.3 modified UTF-7 for a mailbox name (what imapflow sends without UTF8=ACCEPT). */
export function mutf7(s: string): string {
  let out = '';
  let run = '';
  const flush = () => {
    if (run === '') return;
    const b64 = Buffer.from(run, 'utf16le').swap16().toString('base64');
    out += `&${b64.replace(/=+$/, '').replaceAll('/', ',')}-`;
    run = '';
  };
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c >= 0x20 && c <= 0x7e) {
      flush();
      out += ch === '&' ? '&-' : ch;
    } else run += ch;
  }
  flush();
  return out;
}
