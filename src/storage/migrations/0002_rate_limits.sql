-- Counters of rate-limiter-flexible's PostgreSQL store, shared by every instance.
-- Created here (and the limiter told tableCreated) so instances never race to create it.
create table rate_limits (
  key varchar(255) primary key,
  points integer not null default 0,
  expire bigint
);
