/** Shapes of the /ws messages the tool reads (docs/websocket.md, docs/unsubscribe.md). Types only. */

export interface MailtoMethod {
  uri: string;
  to: string;
}

export interface Subscription {
  id: string;
  list_key: string;
  sender: { name: string; address: string; domain: string };
  list_id: string | null;
  count: number;
  first_seen: string | null;
  last_seen: string | null;
  per_month: number;
  read_rate: number;
  methods: { one_click: string | null; http: string[]; mailto: MailtoMethod[] };
  sample_subjects: string[];
  auth: { dkim: string; spf: string; dmarc: string };
  mailboxes: string[];
  junk_only: boolean;
  service: { slug: string; name: string; tier: string } | null;
  unsubscribed_at?: string;
  verification?: 'ineffective' | 'verified_quiet' | 'pending';
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
