-- The latest check of every link of a record (website, cancel page, help article, step,
-- contact and source URLs), one row per (service, URL). service_state keeps the cancel link's.
create table link_state (
  slug text not null references services (slug) on delete cascade,
  url text not null,
  outcome text not null,
  http_status integer,
  final_url text,
  detail text not null,
  checked_at timestamptz not null,
  -- the last check that reached the page (ok or moved); kept when a later check fails
  last_reached_at timestamptz,
  primary key (slug, url)
);

-- A job now checks every link of a service: the history is unique per job and URL.
alter table link_checks drop constraint link_checks_job_id_key;
alter table link_checks add constraint link_checks_job_url_key unique (job_id, url);
