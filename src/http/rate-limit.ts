/**
 * Per-client-IP limits (docs/api.md, "Rate limits") on rate-limiter-flexible: in memory on the
 * embedded default (one process owns the data), in PostgreSQL when DATABASE_URL is set,
 * so several instances together still allow exactly the limit. If the shared store
 * fails, an in-memory limiter takes over rather than failing the request.
 * Headers follow draft-ietf-httpapi-ratelimit-headers: RateLimit-Limit, -Remaining,
 * -Reset (seconds) and RateLimit-Policy; a refusal adds Retry-After.
 */
import { createRequire } from 'node:module';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type * as Flexible from 'rate-limiter-flexible';
import type { Db } from '../storage/index.ts';
import { exposeLimitHeaders } from './cors.ts';
import { ApiError } from './errors.ts';

// The package's index requires all of its ~25 backends (Redis, Mongo, DynamoDB, …: 36 modules,
// ~20 ms of every start); these are the three used here, from the files the index reads them from.
const require = createRequire(import.meta.url);
const RateLimiterMemory: typeof Flexible.RateLimiterMemory = require('rate-limiter-flexible/lib/RateLimiterMemory.js');
const RateLimiterRes: typeof Flexible.RateLimiterRes = require('rate-limiter-flexible/lib/RateLimiterRes.js');
const postgresLimiter = (): typeof Flexible.RateLimiterPostgres =>
  require('rate-limiter-flexible/lib/RateLimiterPostgres.js');

export interface LimitSpec {
  /** key prefix, unique per limit */
  name: string;
  points: number;
  durationSeconds: number;
}

export interface RateLimit {
  spec: LimitSpec;
  /** consumes `points` (default 1) for `key`; the preHandler below is the usual way in */
  consume(key: string, points?: number): Promise<{ allowed: boolean; remaining: number; resetSeconds: number }>;
  /** gives `points` back (an attempt reserved but not spent, or refused after all) */
  reward(key: string, points?: number): Promise<void>;
}

export function createRateLimit(db: Db, spec: LimitSpec): RateLimit {
  const base = { keyPrefix: spec.name, points: spec.points, duration: spec.durationSeconds };
  const memory = new RateLimiterMemory(base);
  const limiter: Flexible.RateLimiterAbstract = db.pool
    ? new (postgresLimiter())({
        ...base,
        storeClient: db.pool,
        storeType: 'pool',
        tableName: 'rate_limits',
        tableCreated: true,
        clearExpiredByTimeout: false,
        insuranceLimiter: memory,
      })
    : memory;
  return {
    spec,
    async consume(key, points = 1) {
      try {
        const res = await limiter.consume(key, points);
        return { allowed: true, remaining: res.remainingPoints, resetSeconds: Math.ceil(res.msBeforeNext / 1000) };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          return { allowed: false, remaining: 0, resetSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
        }
        throw rejection;
      }
    },
    async reward(key, points = 1) {
      // Best effort: a point not given back only makes the limit stricter until the window ends.
      await limiter.reward(key, points).catch(() => {});
    },
  };
}

/**
 * Counters whose window has ended are useless: rate-limiter-flexible's own timed cleanup is
 * off (clearExpiredByTimeout: false, one timer per limiter per instance), so this deletes them
 * instead, hourly (src/storage/retention.ts). `expire` is the window's end in epoch ms.
 */
export async function purgeExpiredRateLimits(db: Db, now = new Date()): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'with gone as (delete from rate_limits where expire < $1 returning 1) select count(*)::int as n from gone',
    [now.getTime()],
  );
  return rows[0]?.n ?? 0;
}

/** Fastify preHandler: counts the request against the client IP, sets headers, refuses with 429. */
export function rateLimited(limit: RateLimit) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const r = await limit.consume(req.ip);
    const { points, durationSeconds } = limit.spec;
    reply.header('RateLimit-Limit', String(points));
    reply.header('RateLimit-Remaining', String(r.remaining));
    reply.header('RateLimit-Reset', String(r.resetSeconds));
    reply.header('RateLimit-Policy', `${points};w=${durationSeconds}`);
    exposeLimitHeaders(reply);
    if (!r.allowed) {
      throw new ApiError(
        'RATE_LIMITED',
        `too many requests: ${points} per ${durationSeconds} s per client; retry in ${r.resetSeconds} s`,
        { 'retry-after': String(r.resetSeconds) },
      );
    }
  };
}
