/**
 * Builds catalog records for unit tests: a complete, valid base (a plain monthly web
 * service) with the parts a test is about replaced.
 */
import type { ServiceRecord } from '../../src/catalog/record.schema.ts';

type Patch = {
  [K in keyof ServiceRecord]?: ServiceRecord[K] extends object ? Partial<ServiceRecord[K]> : ServiceRecord[K];
};

export function makeRecord(patch: Patch = {}): ServiceRecord {
  const base: ServiceRecord = {
    schema_version: '1.1',
    slug: 'example-service',
    name: 'Example Service',
    aliases: [],
    category: 'software-ai',
    region: 'US',
    locale: 'en',
    website: 'https://www.example.com',
    domains: { web: ['example.com'], email: [] },
    cancel: {
      url: 'https://www.example.com/account/cancel',
      help_url: null,
      channels: [{ type: 'web_self_serve', source_ids: ['s1'] }],
      signup_channels: ['web'],
      billing_routes: ['direct'],
      surfaces: ['web'],
      deep_link: true,
      clicks: 2,
      hidden: false,
      confirmation: 'email',
      access_after_cancel: 'until_period_end',
      pause_available: false,
      source_ids: ['s1'],
    },
    retention: { level: 'none', source_ids: ['s1'] },
    timing: {
      commitment: null,
      notice_period: null,
      cutoff: null,
      renews_for_fixed_term: false,
      trial_converts: false,
      known: true,
      source_ids: ['s1'],
    },
    verification: { requires: ['session'], source_ids: ['s1'] },
    cost: { fees: [], refund: 'prorated', refund_window_days: null, forfeits: [], known: true, source_ids: ['s1'] },
    no_working_exit: false,
    plans: [{ name: 'Monthly', price: null, billing_period: 'P1M', commitment: null }],
    steps: [
      { title: 'Sign in', surface: 'web', kind: 'sign_in', source_ids: ['s1'] },
      { title: 'Cancel', surface: 'web', kind: 'confirm', source_ids: ['s1'] },
    ],
    traps: [],
    sources: [
      {
        id: 's1',
        kind: 'official_help',
        publisher: 'Example',
        url: 'https://www.example.com/help',
        confirmed: false,
        read_at: null,
        via: 'a test record',
      },
    ],
    last_verified: null,
  };
  const out = structuredClone(base) as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(patch)) {
    const cur = out[k];
    out[k] =
      cur && typeof cur === 'object' && !Array.isArray(cur) && v && typeof v === 'object' && !Array.isArray(v)
        ? { ...cur, ...v }
        : v;
  }
  return out as unknown as ServiceRecord;
}
