/**
 * Opens an authenticated IMAP session. The host (a preset's or one a person typed for
 * the custom provider) goes through the outbound guard first; the connection is made to
 * the address the guard checked (no DNS rebinding between check and connect) while TLS
 * still verifies the certificate against the host name. Certificates are always
 * verified; a private CA is trusted through NODE_EXTRA_CA_CERTS, never by turning
 * checks off. Failures come back as data with a code a person can act on; the password
 * never appears in them.
 */
import { isIP } from 'node:net';
import type { ImapFlow } from 'imapflow';
import type { OutboundGuard } from '../outbound/guard.ts';
import type { Endpoint } from './providers.ts';

export type ImapFailureCode = 'AUTH_FAILED' | 'CONNECT_FAILED' | 'HOST_NOT_ALLOWED' | 'TLS_FAILED' | 'TIMEOUT';

export interface ImapCredentials {
  user: string;
  password?: string;
  accessToken?: string;
}

export interface ImapTimeouts {
  connectMs: number;
  socketMs: number;
}

export const DEFAULT_IMAP_TIMEOUTS: ImapTimeouts = { connectMs: 10_000, socketMs: 60_000 };

export type ImapSession = { ok: true; client: ImapFlow } | { ok: false; code: ImapFailureCode; message: string };

const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL|HOSTNAME|ALTNAME/;

export function describeImapError(err: unknown, where: string): { code: ImapFailureCode; message: string } {
  const e = err as { code?: string; authenticationFailed?: boolean; message?: string };
  if (e?.authenticationFailed) {
    return {
      code: 'AUTH_FAILED',
      message: 'The server refused the sign-in. Check the address and use an app password, not your usual password.',
    };
  }
  const code = String(e?.code ?? '');
  if (TLS_CODES.test(code) || /certificate/i.test(String(e?.message))) {
    return { code: 'TLS_FAILED', message: `The certificate of ${where} could not be verified, so nothing was sent.` };
  }
  if (/TIMEOUT|ETIMEDOUT/.test(code)) {
    return {
      code: 'TIMEOUT',
      message: `${where} did not answer in time. Check the host and port, or try again later.`,
    };
  }
  const why =
    code === 'ECONNREFUSED'
      ? 'connection refused'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'host not found'
        : code === 'ECONNRESET' || code.startsWith('ClosedAfterConnect')
          ? 'the server closed the connection'
          : 'network error';
  return { code: 'CONNECT_FAILED', message: `Could not connect to ${where} (${why}).` };
}

export async function openImap(
  endpoint: Endpoint,
  creds: ImapCredentials,
  guard: OutboundGuard,
  timeouts: ImapTimeouts = DEFAULT_IMAP_TIMEOUTS,
): Promise<ImapSession> {
  const where = `${endpoint.host}:${endpoint.port}`;
  const resolved = await guard.resolve(endpoint.host, endpoint.port);
  if (!resolved.ok) {
    return resolved.reason === 'dns'
      ? { ok: false, code: 'CONNECT_FAILED', message: `Could not connect to ${where} (host not found).` }
      : {
          ok: false,
          code: 'HOST_NOT_ALLOWED',
          message: `${where} is a private or reserved address and is not reachable from here.`,
        };
  }
  // Loaded on the first connection: a service that is not scanning does not hold imapflow and its
  // MIME decoders in memory (docs/benchmarks.md, bench/memory).
  const { ImapFlow } = await import('imapflow');
  const client = new ImapFlow({
    host: resolved.address,
    port: endpoint.port,
    secure: endpoint.tls === 'implicit',
    // RFC 8314 §3: never send credentials in clear text; STARTTLS is required, not opportunistic.
    doSTARTTLS: endpoint.tls === 'starttls' ? true : undefined,
    servername: isIP(endpoint.host) ? undefined : endpoint.host,
    tls: { rejectUnauthorized: true, minVersion: 'TLSv1.2' },
    auth: creds.accessToken
      ? { user: creds.user, accessToken: creds.accessToken }
      : { user: creds.user, pass: creds.password ?? '' },
    logger: false,
    // Headers are personal data: imapflow's default logger must stay off (see logger: false),
    // and auto-IDLE would only keep a short scan session open for nothing.
    disableAutoIdle: true,
    disableCompression: false,
    connectionTimeout: timeouts.connectMs,
    greetingTimeout: timeouts.connectMs,
    socketTimeout: timeouts.socketMs,
    clientInfo: { name: 'optout' },
  });
  // Attach before connect: an unhandled socket error would otherwise crash the process
  // (postalsys/imapflow#302). The scan watches `client.usable` and its own promises.
  client.on('error', () => {});
  try {
    await client.connect();
    return { ok: true, client };
  } catch (err) {
    client.close();
    return { ok: false, ...describeImapError(err, where) };
  }
}
