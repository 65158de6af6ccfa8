/**
 * A real SMTP server (smtp-server) on 127.0.0.1 with the test certificate, standing in for
 * a provider's submission server: it checks the login and keeps every message it gets.
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

export interface SmtpSink {
  port: number;
  messages: SinkMessage[];
  connections: number;
  close(): Promise<void>;
}

export async function startSmtpSink(opts: {
  user: string;
  password: string;
  tls: 'implicit' | 'starttls';
}): Promise<SmtpSink> {
  const sink: SmtpSink = { port: 0, messages: [], connections: 0, close: async () => {} };
  const server = new SMTPServer({
    secure: opts.tls === 'implicit',
    key: readFileSync(keyPath),
    cert: readFileSync(certPath),
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onConnect(_session, cb) {
      sink.connections++;
      cb();
    },
    onAuth(auth, _session, cb) {
      if (auth.username === opts.user && auth.password === opts.password) cb(null, { user: auth.username });
      else cb(new Error('Invalid username or password'));
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
