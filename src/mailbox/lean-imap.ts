/**
 * A minimal IMAP client connection for the scan's hot FETCH (fetch-reader.ts); imapflow keeps
 * everything else. Same rules as imap-connect.ts: the host passes the outbound guard and the
 * socket goes to the address it checked; TLS verifies the certificate against the host name
 * (rejectUnauthorized is always true); STARTTLS is required when the endpoint says so, and
 * anything the server sends between its STARTTLS answer and the handshake is refused.
 *
 * Connecting goes in steps: the guard's address, the greeting, STARTTLS when asked, the
 * certificate, the capabilities. The connection's state machine is lean-wire.ts; sign-in and
 * EXAMINE are in lean-commands.ts. Every failure is a value (LeanFailure), never a throw or a
 * crash. The password is never in one.
 */
import net, { isIP } from 'node:net';
import tls from 'node:tls';
import type { OutboundGuard } from '../outbound/guard.ts';
import type { ImapTimeouts } from './imap-connect.ts';
import { createWire, fail, type LeanFailure, type LeanImap, type Wire } from './lean-wire.ts';
import type { Endpoint } from './providers.ts';

export type { LeanCode, LeanFailure, LeanImap, RunOptions, Tagged } from './lean-wire.ts';
export { fail } from './lean-wire.ts';

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
  const wire = createWire(where, timeouts, signal);
  // The socket goes to the address the guard checked; TLS still checks the host name.
  wire.attach(
    endpoint.tls === 'implicit'
      ? tls.connect({ host: resolved.address, port: endpoint.port, ...secure })
      : net.connect({ host: resolved.address, port: endpoint.port }),
  );
  const greeting = await wire.greeting;
  if ('ok' in greeting) return greeting;
  if (!/^\* OK\b/i.test(greeting.texts[0]!.toString('latin1')))
    wire.die(fail('REFUSED', 'the server did not greet with OK'));
  else if (endpoint.tls === 'starttls') await startTls(wire, where, secure);
  await verifyCertificate(wire, where);
  if (!wire.dead && wire.caps.size === 0) await wire.run('CAPABILITY');
  return wire.dead ?? { ok: true, conn: wire.open(timeouts.socketMs) };
}

/** RFC 8314 §3: credentials never go in clear text; STARTTLS is required, not opportunistic. */
async function startTls(wire: Wire, where: string, secure: tls.ConnectionOptions): Promise<void> {
  const answer = await wire.run('STARTTLS', {}, true);
  if (answer.ok && answer.status !== 'OK') wire.die(fail('TLS_FAILED', `${where} refused STARTTLS`));
  if (!wire.dead) wire.attach(tls.connect({ socket: wire.handOverPlain(), ...secure }));
}

/** Nothing is written on a TLS connection before its certificate has been verified. */
async function verifyCertificate(wire: Wire, where: string): Promise<void> {
  if (wire.dead) return;
  const s = wire.socket as tls.TLSSocket;
  const verified = await new Promise<boolean>((resolve) => {
    const check = () => resolve(!wire.dead && s.authorized);
    if (s.authorized) check();
    else {
      s.once('secureConnect', check);
      s.once('close', check);
    }
  });
  if (!verified) wire.die(fail('TLS_FAILED', `${where}: TLS failed`));
}
