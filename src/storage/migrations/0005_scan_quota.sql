-- Free-tier scans per mailbox per UTC day. The mailbox is known only by an HMAC of its
-- lower-cased address under a server secret, never in clear.
create table scan_quota (
  mailbox_hmac text not null,
  day date not null,
  used integer not null default 0,
  primary key (mailbox_hmac, day)
);

-- Server-side secrets generated on first start (e.g. the quota HMAC key).
create table app_secrets (
  name text primary key,
  value text not null,
  created_at timestamptz not null default now()
);
