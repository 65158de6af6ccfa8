/**
 * The `unsubscribe` message: acts on this connection's last scan with the credentials it
 * still holds in memory. Streams one `unsubscribe_result` per subscription, then
 * `unsubscribe_done`.
 */
import type { Subscription } from '../mailbox/types.ts';
import { imapCredentials, tokenSource } from '../oauth/mail.ts';
import type { OutboundGuard } from '../outbound/guard.ts';
import { createArchiver } from '../unsubscribe/archive.ts';
import { type EngineSummary, runUnsubscribe, type UnsubscribeResult } from '../unsubscribe/engine.ts';
import { createMailtoSender } from '../unsubscribe/mailto.ts';
import type { UnsubscribeDoneMessage, UnsubscribeMessage, UnsubscribeResultMessage } from './protocol.ts';
import type { LastScan } from './scan-command.ts';
import type { Send } from './session.ts';

type Assert<T extends true> = T;
type Fits<A, B> = [A] extends [B] ? true : false;
type Same<A, B> = Fits<A, B> extends true ? Fits<B, A> : false;
/**
 * The engine's results and counts go out as they are: this compiles only while they fit the
 * protocol, and while the protocol's result has exactly the engine's fields (none left out).
 */
export type EngineFitsProtocol = [
  Assert<Fits<UnsubscribeResult & { type: 'unsubscribe_result' }, UnsubscribeResultMessage>>,
  Assert<Same<keyof (UnsubscribeResult & { type: 'unsubscribe_result' }), keyof UnsubscribeResultMessage>>,
  Assert<Fits<EngineSummary['counts'], UnsubscribeDoneMessage['counts']>>,
];

export async function handleUnsubscribe(
  m: UnsubscribeMessage,
  last: LastScan,
  guard: OutboundGuard,
  send: Send,
  signal: AbortSignal,
): Promise<void> {
  const dryRun = m.dry_run ?? false;
  const wanted: Subscription[] = [];
  for (const id of new Set(m.ids)) {
    const sub = last.subscriptions.get(id);
    if (sub) wanted.push(sub);
    else {
      send({
        type: 'unsubscribe_result',
        id,
        status: 'failed',
        method: null,
        detail: 'Unknown subscription: it was not found by the last scan on this connection.',
        dry_run: dryRun,
      });
    }
  }
  const needsMail = !dryRun && wanted.some((s) => s.methods.mailto.length > 0);
  const mailto =
    last.smtp && (needsMail || dryRun)
      ? createMailtoSender({
          endpoint: last.smtp,
          user: last.creds.user,
          password: last.creds.password,
          // a Microsoft sign-in: each SMTP connection takes a token fresh then (docs/microsoft.md)
          tokens: last.account ? tokenSource(last.account) : undefined,
          from: last.email,
          guard,
        })
      : null;
  const archiveTo = m.archive === 'trash' ? 'trash' : m.archive ? 'archive' : null;
  const archiver =
    archiveTo && !dryRun
      ? createArchiver({
          imap: last.imap,
          creds: last.account ? () => imapCredentials(last.account!) : last.creds,
          guard,
          uids: last.uids,
          to: archiveTo,
        })
      : null;
  try {
    const summary = await runUnsubscribe(
      wanted,
      { guard, mailto, archive: archiver ? (s) => archiver.move(s.id) : undefined },
      { dryRun, includeFlagged: new Set(m.include_flagged ?? []), signal },
      (r) => send({ type: 'unsubscribe_result', ...r }),
    );
    const unknown = new Set(m.ids).size - wanted.length; // an id sent twice is one subscription
    summary.counts.failed += unknown;
    send({
      type: 'unsubscribe_done',
      total: new Set(m.ids).size,
      dry_run: dryRun,
      duration_ms: summary.durationMs,
      counts: summary.counts,
      archived: summary.archived,
    });
  } finally {
    await mailto?.close();
    await archiver?.close();
  }
}
