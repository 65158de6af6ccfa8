/**
 * A scan's two connections. imapflow signs in (its answer is the one reported), lists and
 * does everything but the hot FETCH; the lean connection (lean-imap.ts) is opened only once
 * imapflow has signed in, so a wrong password costs the provider one failed login on one
 * connection, never a second connection (docs/security.md). Its TLS handshake then overlaps
 * the LIST and the folder selection instead. The lean connection is never a reason for a scan to
 * fail: anything unexpected there means "no lean connection", and imapflow reads instead.
 */
import type { ImapFlow } from 'imapflow';
import type { OutboundGuard } from '../outbound/guard.ts';
import { type ImapCredentials, type ImapFailureCode, type ImapTimeouts, openImap } from './imap-connect.ts';
import { signIn } from './lean-commands.ts';
import { connectLean, type LeanImap } from './lean-imap.ts';
import type { Endpoint } from './providers.ts';

export interface ScanConnections {
  client: ImapFlow;
  /** the signed-in lean connection, or null when it cannot be used */
  lean: Promise<LeanImap | null>;
  /** Closes both; LOGOUT is polite but never holds the result back. */
  close(): void;
}

export async function openScanConnections(
  endpoint: Endpoint,
  creds: ImapCredentials,
  guard: OutboundGuard,
  opts: { timeouts: ImapTimeouts; signal: AbortSignal; lean: boolean },
): Promise<{ ok: true; conns: ScanConnections } | { ok: false; code: ImapFailureCode; message: string }> {
  const session = await openImap(endpoint, creds, guard, opts.timeouts);
  if (!session.ok) return session;
  const client = session.client;
  const opening = opts.lean && !opts.signal.aborted ? connectLean(endpoint, guard, opts.timeouts, opts.signal) : null;
  const lean: Promise<LeanImap | null> = (opening ?? Promise.resolve(null))
    .then(async (r) => {
      if (!r?.ok) return null;
      const signedIn = await signIn(r.conn, creds).catch(() => null);
      if (signedIn?.ok) return r.conn;
      r.conn.close();
      return null;
    })
    .catch(() => null);
  return {
    ok: true,
    conns: {
      client,
      lean,
      close() {
        void lean.then((c) => c?.close()); // still signing in (an early return): closed when done
        // A dead connection must not hang LOGOUT: close() frees the socket after LOGOUT's
        // answer or a second at most.
        void Promise.race([client.logout().catch(() => {}), new Promise((r) => setTimeout(r, 1000))])
          .then(() => client.close())
          .catch(() => {}); // a socket already gone: nothing left to free
      },
    },
  };
}
