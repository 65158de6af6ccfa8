/**
 * A real SMTP server (smtp-server) on 127.0.0.1 with the test certificate, standing in for
 * a provider's submission server: it checks the login and keeps every message it gets.
 * With `oauth`, it takes AUTH XOAUTH2 and checks each token the way Outlook's server would:
 * at the identity provider (RFC 7662 introspection), active and issued to that very address;
 * a refused token gets the XOAUTH2 error challenge (334 + JSON), then 535.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { certPath, keyPath } from './tls-ca.ts';

export interface SinkMessage {
  from: string;
  to: string[];
  user: string | undefined;
  raw: string;
}

export interface SinkOAuth {
  introspect(token: string): Promise<{ active: boolean; sub?: string }>;
}

export interface SmtpSink {
  port: number;
  messages: SinkMessage[];
  connections: number;
  /** XOAUTH2 sign-ins: the token each one carried and whether it was accepted */
  oauthLogins: { user: string; token: string; accepted: boolean }[];
  /**
   * Recipients refused from now on, with a temporary 451 (a server refusing mid-batch): a
   * number lets that many more messages through first; 'all' refuses every one; null none.
   */
  refuse: number | 'all' | null;
  close(): Promise<void>;
}

export async function startSmtpSink(opts: {
  user?: string;
  password?: string;
  tls: 'implicit' | 'starttls';
  oauth?: SinkOAuth;
}): Promise<SmtpSink> {
  const sink: SmtpSink = {
    port: 0,
    messages: [],
    connections: 0,
    oauthLogins: [],
    refuse: null,
    close: async () => {},
  };
  const server = new SMTPServer({
    secure: opts.tls === 'implicit',
    key: readFileSync(keyPath),
    cert: readFileSync(certPath),
    authMethods: opts.oauth ? ['XOAUTH2'] : ['PLAIN', 'LOGIN'],
    logger: false,
    onConnect(_session, cb) {
      sink.connections++;
      cb();
    },
    onAuth(auth, _session, cb) {
      if (auth.method === 'XOAUTH2' && opts.oauth) {
        const token = auth.accessToken ?? '';
        const user = auth.username ?? '';
        opts.oauth.introspect(token).then(
          (info) => {
            const accepted = info.active && info.sub?.toLowerCase() === user.toLowerCase();
            sink.oauthLogins.push({ user, token, accepted });
            // smtp-server answers the XOAUTH2 error challenge for `data` (Google's XOAUTH2 protocol)
            if (accepted) cb(null, { user });
            else
              cb(null, { data: { status: '401', schemes: 'bearer', scope: 'https://outlook.office.com/SMTP.Send' } });
          },
          (err: Error) => cb(err),
        );
        return;
      }
      if (opts.user && auth.username === opts.user && auth.password === opts.password) {
        cb(null, { user: auth.username });
      } else cb(new Error('Invalid username or password'));
    },
    onRcptTo(_address, _session, cb) {
      const r = sink.refuse;
      if (r === 'all' || (typeof r === 'number' && r <= 0)) {
        const err = Object.assign(new Error('Mailbox temporarily unavailable, try again later'), { responseCode: 451 });
        cb(err);
        return;
      }
      if (typeof r === 'number') sink.refuse = r - 1;
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        sink.messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: session.user as string | undefined,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  sink.port = (server.server.address() as AddressInfo).port;
  sink.close = () => new Promise<void>((r) => server.close(() => r()));
  return sink;
}
