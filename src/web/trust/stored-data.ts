/**
 * Everything optout keeps in its database, table by table, as /privacy shows it. The test
 * beside this file compares this list with the tables a migrated database really has (the
 * public schema, and pg-boss's own schema as one entry), so a new table cannot appear without
 * the page saying what it holds and for how long.
 */

export interface StoredTable {
  /** table name in the public schema, or `pgboss.*` for the job queue's schema */
  name: string;
  what: string;
  /** anything that relates to a person, said plainly; null when nothing does */
  personal: string | null;
  kept: string;
}

export const STORED_TABLES: readonly StoredTable[] = [
  {
    name: 'scan_quota',
    what: 'How many scans each mailbox used today, for the daily limit.',
    personal:
      'The mailbox is known only by a keyed hash of its address (HMAC-SHA-256 under a secret of this server): the address itself is never stored, and the hash cannot be turned back into it without that secret.',
    kept: 'Until the UTC day is over; deleted within the hour after midnight UTC.',
  },
  {
    name: 'rate_limits',
    what: 'Request counters that stop one client from flooding the public API and agent sign-up, and that limit failed mailbox sign-ins, scans and unsubscribes (an hour each).',
    personal:
      'Each counter is keyed by the client’s IP address (public API, agent sign-up), by a keyed hash of an email address (agent claim emails), or by a keyed hash of an IP address or a mailbox address (failed sign-ins, scans, unsubscribes): those addresses are never stored themselves. Only used when this site runs on a PostgreSQL server; on the embedded database the counters live in memory.',
    kept: 'Until the counter’s window ends (one hour at most); deleted within the next hour.',
  },
  {
    name: 'app_secrets',
    what: 'Keys this server generated for itself at its first start: the key of the quota hash, the key of the attempt-limit hashes, the key of the agent sign-up hashes, and the key that seals the short-lived Microsoft sign-in cookie.',
    personal: null,
    kept: 'For the life of the installation.',
  },
  {
    name: 'services',
    what: 'The catalog of paid services and their cancellation guides, loaded from the reviewed files at start.',
    personal: null,
    kept: 'Rewritten at every start.',
  },
  {
    name: 'service_state',
    what: 'The latest link check of each service’s cancellation page.',
    personal: null,
    kept: 'Replaced by the next check.',
  },
  {
    name: 'link_state',
    what: 'The latest check of every link in each service’s record (its website, cancellation page, help articles and sources), shown on the service page.',
    personal: null,
    kept: 'Replaced by the next check of that link.',
  },
  {
    name: 'ws_leases',
    what: 'Which inbox-tool connections are open right now, so one client cannot hold more than a few at once across every server of this site.',
    personal:
      'The client is known only by a keyed hash of its IP address (HMAC-SHA-256 under a secret of this server), never the address itself. Nothing about the mailbox.',
    kept: 'While the connection is open; a lease its server did not renew lapses within minutes and is deleted at the next connection from that client.',
  },
  {
    name: 'link_checks',
    what: 'Every check of a service’s cancellation page: the address checked, the HTTP status, redirects, a hash of the page and the time.',
    personal: null,
    kept: 'Kept as the history of the catalog’s links.',
  },
  {
    name: 'guide_cache',
    what: 'Cancellation guides written by a language model, so the same guide is not written twice.',
    personal: null,
    kept: 'Until the service’s record changes.',
  },
  {
    name: 'agent_registrations',
    what: 'AI agents that registered for an API key.',
    personal:
      'A SHA-256 hash of the claim token and, for a verified-email registration, a keyed hash of the email address the agent named.',
    kept: 'Deleted 7 days after the registration expired or was revoked.',
  },
  {
    name: 'agent_credentials',
    what: 'The agents’ API keys and access tokens.',
    personal: 'Only SHA-256 hashes of the keys and their first characters (never enough to use one).',
    kept: 'Deleted with their registration.',
  },
  {
    name: 'agent_claim_attempts',
    what: 'Claim emails sent to confirm an agent’s registration.',
    personal: 'A keyed hash of the address, a hash of the emailed link and a keyed hash of the one-time code.',
    kept: 'Deleted with their registration.',
  },
  {
    name: 'schema_migrations',
    what: 'Which database changes have been applied.',
    personal: null,
    kept: 'For the life of the installation.',
  },
  {
    name: 'pgboss.*',
    what: 'The queue of link checks (pg-boss): each job names a service to check.',
    personal: null,
    kept: 'Finished jobs are deleted after 7 days.',
  },
];
