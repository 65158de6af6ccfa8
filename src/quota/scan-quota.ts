/**
 * The daily allowance: SCAN_DAILY_LIMIT scans per mailbox per UTC day (there is no paid tier).
 * A mailbox is keyed by HMAC-SHA256(secret, lower-cased address), so the table never
 * holds an address. A scan counts once its sign-in worked (a failed login costs
 * nothing); the increment is one conditional UPDATE, so concurrent scans on several
 * instances can never exceed the limit.
 */
import { createHmac } from 'node:crypto';
import type { Db } from '../storage/index.ts';
import { serverSecret } from './secret.ts';

export interface QuotaStatus {
  scans_left: number;
  resets_at: string;
}

export interface ScanQuota {
  limit: number;
  status(email: string, now?: Date): Promise<QuotaStatus>;
  /** takes one scan; false when none is left */
  take(email: string, now?: Date): Promise<{ ok: boolean } & QuotaStatus>;
}

const utcDay = (d: Date) => d.toISOString().slice(0, 10);
const nextMidnight = (d: Date) =>
  new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)).toISOString();

/**
 * A day's counts matter only until that UTC day ends: rows of earlier days are deleted
 * (src/storage/retention.ts runs this hourly), so a keyed hash lives at most about a day.
 */
export async function purgeFinishedDays(db: Db, now = new Date()): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'with gone as (delete from scan_quota where day < $1 returning 1) select count(*)::int as n from gone',
    [utcDay(now)],
  );
  return rows[0]?.n ?? 0;
}

export async function createScanQuota(db: Db, limit: number): Promise<ScanQuota> {
  const secret = await serverSecret(db, 'scan-quota-hmac');
  const key = (email: string) => createHmac('sha256', secret).update(email.trim().toLowerCase()).digest('hex');
  async function used(k: string, day: string) {
    const { rows } = await db.query<{ used: number }>(
      'select used from scan_quota where mailbox_hmac = $1 and day = $2',
      [k, day],
    );
    return rows[0]?.used ?? 0;
  }
  return {
    limit,
    async status(email, now = new Date()) {
      const n = await used(key(email), utcDay(now));
      return { scans_left: Math.max(0, limit - n), resets_at: nextMidnight(now) };
    },
    async take(email, now = new Date()) {
      const k = key(email);
      const day = utcDay(now);
      await db.query('insert into scan_quota (mailbox_hmac, day) values ($1, $2) on conflict do nothing', [k, day]);
      const { rows } = await db.query<{ used: number }>(
        'update scan_quota set used = used + 1 where mailbox_hmac = $1 and day = $2 and used < $3 returning used',
        [k, day, limit],
      );
      const after = rows[0]?.used;
      if (after === undefined) return { ok: false, scans_left: 0, resets_at: nextMidnight(now) };
      return { ok: true, scans_left: Math.max(0, limit - after), resets_at: nextMidnight(now) };
    },
  };
}
