/** Shapes of the /ws messages the tool reads (docs/websocket.md, docs/unsubscribe.md). Types only. */
import type { Verification } from '../../../channel/verification.ts';
import type { Subscription as ScannedSubscription } from '../../../mailbox/types.ts';

// The subscription shape is the server's own (src/mailbox/types.ts), plus what the channel adds
// for an earlier unsubscribe (src/channel/verification.ts): one definition for both ends.
export interface Subscription extends ScannedSubscription {
  unsubscribed_at?: string;
  verification?: Verification;
}

export type UnsubscribeStatus = 'unsubscribed' | 'email_sent' | 'open_link' | 'skipped' | 'failed';

export interface UnsubscribeResult {
  type: 'unsubscribe_result';
  id: string;
  status: UnsubscribeStatus;
  method: 'one_click' | 'mailto' | 'link' | null;
  url?: string;
  detail?: string;
  archived?: number;
  dry_run: boolean;
}

export interface UnsubscribeDone {
  type: 'unsubscribe_done';
  total: number;
  dry_run: boolean;
  duration_ms: number;
  counts: Record<UnsubscribeStatus, number>;
  archived?: number;
}

export interface Progress {
  type: 'progress';
  phase: 'connecting' | 'listing' | 'searching' | 'fetching' | 'finishing';
  done?: number;
  total?: number;
  mailbox?: string;
}

export interface Done {
  type: 'done';
  scanned: number;
  subscriptions: number;
  duration_ms: number;
  cancelled: boolean;
  verification?: { list_key: string; at: string; status: string }[];
}

export interface ErrorMessage {
  type: 'error';
  code: string;
  message: string;
  resets_at?: string;
}

export interface Quota {
  type: 'quota';
  email: string;
  scans_left: number;
  resets_at: string;
}

export type ServerMessage =
  | { type: 'ready'; protocol: string; daily_limit: number }
  | Quota
  | Progress
  | { type: 'subscription'; subscription: Subscription }
  | Done
  | UnsubscribeResult
  | UnsubscribeDone
  | ErrorMessage;
