/**
 * The one error catalog of the /ws protocol: every `code` an `error` message can carry, what
 * it means, and whether the connection stays usable after it. docs/websocket.md lists the
 * same table (protocol-docs.test.ts holds the two together), and the browser's advice for
 * each code is keyed by this type, so a new code cannot go unexplained.
 *
 * The connection closes by itself only for the reasons in WS_CLOSE; of the `error`s, only
 * SESSION_ENDED, TOO_MANY_CONNECTIONS and SERVICE_RESTARTING come with a close.
 */

export interface WsErrorEntry {
  meaning: string;
  /** 'stays': send the next message on the same connection; 'closes': the server closes it */
  connection: 'stays' | 'closes';
}

export const WS_ERRORS = {
  INVALID_MESSAGE: {
    meaning: 'not JSON, an unknown `type`, a field missing or wrong (named in `message`), or a step out of order',
    connection: 'stays',
  },
  BUSY: { meaning: 'a scan or unsubscribe batch is already running in this session', connection: 'stays' },
  SCAN_QUOTA_EXCEEDED: {
    meaning: 'no scans left for this mailbox today; `resets_at` says when',
    connection: 'stays',
  },
  AUTH_FAILED: { meaning: 'the mail server refused the sign-in', connection: 'stays' },
  CONNECT_FAILED: {
    meaning: 'the mail server could not be reached (refused, not found, closed)',
    connection: 'stays',
  },
  TLS_FAILED: { meaning: 'the mail server’s certificate could not be verified', connection: 'stays' },
  HOST_NOT_ALLOWED: { meaning: 'the host is a private or reserved address', connection: 'stays' },
  TIMEOUT: {
    meaning: 'the mail server did not answer in time, or the scan ran over 15 minutes',
    connection: 'stays',
  },
  MAILBOX_NOT_FOUND: {
    meaning: 'a folder asked for by path does not exist; `message` lists the folders',
    connection: 'stays',
  },
  SCAN_FAILED: { meaning: 'the connection to the mail server dropped during the scan', connection: 'stays' },
  AUDIT_FAILED: {
    meaning: 'the connection to the mail server dropped while the audit read receipts; the scan’s results are kept',
    connection: 'stays',
  },
  SESSION_EXPIRED: {
    meaning: '`resume` named a session that is unknown or expired; its sign-in is already wiped',
    connection: 'stays',
  },
  SESSION_ENDED: {
    meaning: 'the session reached its hard limit (`expires_at`); its sign-in and results are wiped',
    connection: 'closes',
  },
  OAUTH_NOT_CONFIGURED: {
    meaning: '`outlook` was asked for but this server has no Microsoft sign-in set up (docs/microsoft.md)',
    connection: 'stays',
  },
  OAUTH_SESSION_EXPIRED: {
    meaning: '`outlook` without a Microsoft sign-in on this connection, or one that ended or was withdrawn',
    connection: 'stays',
  },
  OAUTH_PROVIDER_UNAVAILABLE: {
    meaning: 'Microsoft could not be reached to renew the sign-in; nothing was changed',
    connection: 'stays',
  },
  OAUTH_PROVIDER_ERROR: { meaning: 'Microsoft refused this server’s own request', connection: 'stays' },
  OAUTH_TOKEN_REFUSED: {
    meaning: 'the mail server refused the Microsoft sign-in even with a fresh token',
    connection: 'stays',
  },
  TOO_MANY_SIGN_IN_FAILURES: {
    meaning:
      'too many failed sign-ins for this address, or from this client’s network, in the last hour; the mail server was not contacted; `retry_after` says when to try again',
    connection: 'stays',
  },
  TOO_MANY_SCANS: {
    meaning: 'too many scans started from this client’s network in the last hour; `retry_after` says when',
    connection: 'stays',
  },
  TOO_MANY_UNSUBSCRIBES: {
    meaning: 'this batch would pass the unsubscribes allowed per network per hour; nothing was sent; `retry_after`',
    connection: 'stays',
  },
  TOO_MANY_CONNECTIONS: {
    meaning: 'this client’s network has as many /ws connections open as allowed; `retry_after`',
    connection: 'closes',
  },
  SERVICE_UNAVAILABLE: {
    meaning:
      'the service cannot reach its database for a moment; nothing was done; `retry_after` says when to try again',
    connection: 'stays',
  },
  SERVICE_RESTARTING: {
    meaning:
      'the server is shutting down: everything it did was reported; reconnect (another instance answers) and scan again',
    connection: 'closes',
  },
  INTERNAL: { meaning: 'a bug on our side', connection: 'stays' },
} as const satisfies Record<string, WsErrorEntry>;

export type WsErrorCode = keyof typeof WS_ERRORS;
export const WS_ERROR_CODES = Object.keys(WS_ERRORS) as [WsErrorCode, ...WsErrorCode[]];

/**
 * Why the server closes a connection (RFC 6455 §7.4.1: 1000 normal closure, 1009 message too
 * big; 4000–4999 are the application's own, §7.4.2; 1012 service restart is registered with
 * IANA's WebSocket Close Code Number Registry). After `idle` the session is kept like after any
 * dropped connection; after `ended` it is gone; after `replaced` another connection resumed it;
 * after `restart` (SERVICE_RESTARTING) this instance is going away with the session's sign-in.
 */
export const WS_CLOSE = {
  idle: { code: 1000, reason: 'idle' },
  ended: { code: 1000, reason: 'session lifetime reached' },
  replaced: { code: 4001, reason: 'session resumed elsewhere' },
  tooLarge: { code: 1009, reason: '' },
  // 1013 "Try Again Later" (IANA WebSocket Close Code Number Registry)
  tooMany: { code: 1013, reason: 'too many connections' },
  restart: { code: 1012, reason: 'service restart' },
} as const;
