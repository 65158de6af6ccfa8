/**
 * The /ws protocol, version 2.4 (docs/websocket.md): JSON text frames, each with `type`.
 * Everything either side may send is defined once, here and in the modules this one gathers:
 * client-messages.ts, server-messages.ts, wire-subscription.ts and the error catalog errors.ts.
 * The server and the browser code (src/web/client/tool/) import these same definitions.
 */
import type { z } from 'zod';

export const PROTOCOL_VERSION = '2.4';

export {
  AuditRequestMessage,
  ClientMessage,
  type ClientMessageInput,
  ResumeMessage,
  ScanMessage,
  UnsubscribeMessage,
} from './client-messages.ts';
export { WS_CLOSE, WS_ERRORS, type WsErrorCode } from './errors.ts';
export {
  AuditResultMessage,
  DoneMessage,
  ErrorMessage,
  ProgressMessage,
  QuotaStatusMessage,
  ReadyMessage,
  ResumedMessage,
  ServerMessage,
  type ServerMessageOf,
  SubscriptionMessage,
  UnsubscribeDoneMessage,
  UnsubscribeResultMessage,
} from './server-messages.ts';
export { Subscription, Verification } from './wire-subscription.ts';

/** "scan.port: Too small…" — the field first, never the values (they may be secrets). */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join('.') : 'message'}: ${i.message}`)
    .join('; ');
}
