-- Every finished link check, newest last; service_state keeps the latest per service.
create table link_checks (
  id bigserial primary key,
  slug text not null references services (slug) on delete cascade,
  job_id text not null,
  url text not null,
  outcome text not null,
  http_status integer,
  final_url text,
  redirects jsonb not null default '[]',
  content_hash text,
  content_changed boolean,
  detail text not null,
  duration_ms integer not null,
  checked_at timestamptz not null default now(),
  -- at-least-once delivery: a retried job must not record its result twice
  unique (job_id)
);
create index link_checks_slug_idx on link_checks (slug, checked_at desc);
