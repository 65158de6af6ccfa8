/**
 * Shapes shared by the scan (IMAP), the parser and the grouping. Nothing here is ever
 * written to storage or logs: it lives in memory for one scan session.
 */
import type { OneClickWithheld } from './one-click-evidence.ts';

export type { OneClickWithheld };

/** One message as the scan sees it: header fields only, plus its \Seen flag. */
export interface MessageMeta {
  uid: number;
  /** mailbox path, e.g. "INBOX", "[Gmail]/All Mail", "Junk" */
  mailbox: string;
  /** true when the mailbox is a Junk/Spam folder (special-use \Junk or a known name) */
  junk: boolean;
  seen: boolean;
  /** the fetched header block (src/mailbox/scan-read.ts HEADER_FIELDS) */
  headers: Uint8Array;
}

export interface MailtoMethod {
  /** the mailto: URI as written (scheme lower-cased, an internationalised domain as A-labels) */
  uri: string;
  to: string;
  subject: string | null;
  body: string | null;
}

export interface UnsubscribeMethods {
  /** RFC 8058: an https URI that may be POSTed with List-Unsubscribe=One-Click */
  one_click: string | null;
  /** http(s) URIs from List-Unsubscribe (to be opened by a person) */
  http: string[];
  mailto: MailtoMethod[];
}

export type AuthVerdict = 'pass' | 'fail' | 'none' | 'unknown';

export interface SenderAuth {
  dkim: AuthVerdict;
  spf: AuthVerdict;
  dmarc: AuthVerdict;
}

/** Everything the grouping needs from one message, after parsing. */
export interface ParsedMessage {
  uid: number;
  mailbox: string;
  junk: boolean;
  seen: boolean;
  from: { name: string; address: string } | null;
  /** the List-Id identifier (RFC 2919: the part in angle brackets), lower-cased */
  listId: string | null;
  listName: string | null;
  methods: UnsubscribeMethods;
  /** why the headers' one-click was dropped from `methods` (one-click-evidence.ts), else null */
  oneClickWithheld: OneClickWithheld | null;
  /**
   * Set only by a parser that defers the check (createHeaderParser's deferEvidence): then
   * `methods.one_click` is a candidate, and the grouping checks this evidence for it.
   */
  oneClickEvidence?: OneClickEvidence;
  date: Date | null;
  subject: string | null;
  auth: SenderAuth;
  /** RFC 5322 §3.6.4 msg-id without its angle brackets: one message in two folders is counted once */
  messageId: string | null;
}

/** What one-click-evidence.ts reads of one message. */
export interface OneClickEvidence {
  authResults: string[];
  dkimSignatures: string[];
  fromDomain: string | null;
}

export interface ServiceMatch {
  slug: string;
  name: string;
  tier: string;
  /** the friction score (0–10, one decimal) the tier derives from (docs/friction.md) */
  difficulty: number;
}

/** A subscription as sent over /ws (docs/websocket.md). */
export interface Subscription {
  id: string;
  /** stable key of the list across scans (List-Id or sender address); used to verify unsubscribes */
  list_key: string;
  sender: { name: string; address: string; domain: string };
  list_id: string | null;
  count: number;
  first_seen: string | null;
  last_seen: string | null;
  per_month: number;
  read_rate: number;
  methods: UnsubscribeMethods;
  /** the newest message offered one-click but it is not used, and why (docs/unsubscribe.md) */
  one_click_withheld: OneClickWithheld | null;
  sample_subjects: string[];
  auth: SenderAuth;
  mailboxes: string[];
  junk_only: boolean;
  service: ServiceMatch | null;
  /**
   * only when the scan was told of an earlier unsubscription from this list: its messages
   * dated after that moment (undated ones are not counted)
   */
  since_unsubscribe?: number;
}
