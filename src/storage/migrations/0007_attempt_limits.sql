-- Open /ws connections per client, shared by every instance (src/limits/connection-leases.ts).
-- The client is known only by an HMAC of its IP address under a server secret. A lease is
-- renewed while its connection lives; one whose instance died lapses at expires_at.
-- (Failed sign-ins, scans and unsubscribes per address or IP count in rate_limits, 0002.)
create table ws_leases (
  id text primary key,
  client_key text not null,
  expires_at timestamptz not null
);
create index ws_leases_client on ws_leases (client_key);
