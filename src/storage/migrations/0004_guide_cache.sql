-- Guides written by a model, cached by what determines them: the record's content
-- version, the tone, the locale and the writer (provider and model).
create table guide_cache (
  slug text not null references services (slug) on delete cascade,
  version text not null,
  tone text not null,
  locale text not null,
  writer text not null,
  guide jsonb not null,
  created_at timestamptz not null default now(),
  primary key (slug, version, tone, locale, writer)
);
