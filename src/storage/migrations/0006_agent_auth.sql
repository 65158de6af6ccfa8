-- Agent registration and claim (docs/agents.md). Every secret is kept only as a SHA-256 hex
-- digest (claim tokens, api keys, access tokens, claim links) or an HMAC under a server secret
-- (the one-time codes and the email addresses, both guessable from a digest alone).

create table agent_registrations (
  id text primary key,
  kind text not null check (kind in ('anonymous', 'verified_email')),
  -- the credential type asked for: issued at once (anonymous) or at claim completion
  credential_type text not null check (credential_type in ('api_key', 'access_token')),
  claim_token_sha256 text not null unique,
  -- verified_email: HMAC of the asserted address; the claim can only go there
  email_hmac text,
  -- end of the claim token, and of an unclaimed registration's key
  expires_at timestamptz not null,
  claimed_at timestamptz,
  revoked_at timestamptz,
  revoke_reason text,
  created_at timestamptz not null default now()
);
create index agent_registrations_expires on agent_registrations (expires_at) where claimed_at is null;

create table agent_credentials (
  token_sha256 text primary key,
  registration_id text not null references agent_registrations (id) on delete cascade,
  type text not null check (type in ('api_key', 'access_token')),
  -- the first characters of the secret, for people and revocation events; never enough to use it
  hint text not null,
  -- null: no expiry (a claimed api_key)
  expires_at timestamptz,
  created_at timestamptz not null default now()
);
create index agent_credentials_registration on agent_credentials (registration_id);

-- One emailed claim link each; the code is minted when the person presses the button on
-- the link's page, and a new press replaces it.
create table agent_claim_attempts (
  id text primary key,
  registration_id text not null references agent_registrations (id) on delete cascade,
  email_hmac text not null,
  link_sha256 text not null unique,
  link_expires_at timestamptz not null,
  otp_hmac text,
  otp_expires_at timestamptz,
  otp_failures integer not null default 0,
  superseded_at timestamptz,
  completed_at timestamptz,
  created_at timestamptz not null default now()
);
create index agent_claim_attempts_registration on agent_claim_attempts (registration_id);
