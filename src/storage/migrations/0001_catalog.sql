-- The catalog as loaded from catalog/services/*.json at start. `version` is a hash of
-- the record's content, so caches keyed by it (guides) notice an edit.
create table services (
  slug text primary key,
  version text not null,
  record jsonb not null,
  loaded_at timestamptz not null default now()
);

-- What the service learns about a record at run time (link checks).
create table service_state (
  slug text primary key references services (slug) on delete cascade,
  link_status jsonb,
  last_verified timestamptz
);
