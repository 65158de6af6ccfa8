/**
 * Bounds on one scan's work (docs/security.md, "Bounded work per scan"): a mailbox with a
 * million messages, or a sender with a 50 MB header block, must neither exhaust the service's
 * memory nor hold a connection for long. Each cap hit is reported in the scan's result (the
 * `done` message's `capped`), so the person knows what was left out.
 *
 * - messages: at most this many messages are read per scan, the newest of each folder in the
 *   order folders are read (a folder past the cap is not read at all);
 * - headerBytes: of each message's header fields at most this many bytes are fetched (a partial
 *   FETCH, RFC 3501 §6.4.5 `<0.N>`), cut back to the last whole line;
 * - subscriptions: at most this many lists are kept; mail of further lists is not counted.
 */
export interface ScanCaps {
  messages: number;
  headerBytes: number;
  subscriptions: number;
}

export const DEFAULT_SCAN_CAPS: ScanCaps = Object.freeze({
  messages: 250_000,
  headerBytes: 64 * 1024,
  subscriptions: 5000,
});

/** A cap that was reached: `count` messages not read, cut, or of lists not kept. */
export interface CapHit {
  cap: keyof ScanCaps;
  limit: number;
  count: number;
}
