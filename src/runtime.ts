/**
 * The long-lived parts the routes share: the outbound guard, per-IP rate limits, the
 * link-check queue and its worker. Created once per process (main.ts or a test) and
 * closed before the database.
 */
import type { Logger } from 'pino';
import { type AgentContext, type AgentOptions, createAgentContext } from './agent/context.ts';
import { auditCatalog } from './audit/senders.ts';
import type { Catalog } from './catalog/load.ts';
import { createServiceStates, type ServiceStates } from './catalog/states.ts';
import { createLiveConnections, type LiveConnections } from './channel/drain.ts';
import { serviceMatcher } from './channel/service-match.ts';
import { createSessionStore, type SessionStore } from './channel/session-store.ts';
import { type ChannelSettings, DEFAULT_CHANNEL_SETTINGS } from './channel/ws-route.ts';
import type { Config } from './config.ts';
import { createGuideService, type GuideService } from './guidance/guide/service.ts';
import { createLlmClient } from './guidance/llm/index.ts';
import {
  createHandoffStore,
  DEFAULT_HANDOFF_SETTINGS,
  type HandoffSettings,
  type HandoffStore,
} from './handoff/store.ts';
import { createReadiness, type Readiness } from './health/readiness.ts';
import { createRateLimit, purgeExpiredRateLimits, type RateLimit } from './http/rate-limit.ts';
import { type AttemptLimits, createAttemptLimits } from './limits/attempt-limits.ts';
import { type LinkCheckQueue, queueWhenOpen } from './linkcheck/deferred.ts';
import { DEFAULT_TIMING, openQueue, type QueueTiming } from './linkcheck/queue.ts';
import { createOAuthService, type OAuthService } from './oauth/service.ts';
import { createOutboundGuard, type OutboundGuard } from './outbound/guard.ts';
import { createScanQuota, purgeFinishedDays, type ScanQuota } from './quota/scan-quota.ts';
import type { Db } from './storage/index.ts';
import { type Retention, startRetention } from './storage/retention.ts';

/** Per-client-IP limits of the public API (docs/api.md, "Rate limits"); link checks: LINK_CHECKS_PER_IP. */
export const LIMITS = {
  guide: { name: 'guide', points: 20, durationSeconds: 60 },
  linkCheck: { name: 'link-check', durationSeconds: 60 },
} as const;

export interface Runtime {
  guard: OutboundGuard;
  limits: { guide: RateLimit; linkCheck: RateLimit };
  /** failed sign-ins, scans, unsubscribes and /ws connections per address or client IP (src/limits/) */
  attempts: AttemptLimits;
  /** the link-check queue; main.ts opens it (`queue.open()`) once the server listens */
  queue: LinkCheckQueue;
  guides: GuideService;
  quota: ScanQuota;
  channel: ChannelSettings;
  /** scan sessions (credentials and results in memory), driven over /ws */
  sessions: SessionStore;
  /** scans for agents: the person signs in on a connect page, the agent reads the results (src/handoff/) */
  handoffs: HandoffStore;
  /** the open /ws connections; drained on SIGTERM (main.ts) */
  live: LiveConnections;
  /** link-check state of every service, in memory for the catalog API */
  states: ServiceStates;
  /** agent registration: store, mailer, revocation bus, limits (src/agent/) */
  agent: AgentContext;
  /** the Microsoft sign-in: client, browser sessions (tokens in memory only) */
  oauth: OAuthService;
  /** what /readyz answers; main.ts drains it on SIGTERM */
  readiness: Readiness;
  /** hourly deletion of finished quota days and expired rate-limit counters */
  retention: Retention;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  queueTiming?: QueueTiming;
  /** run link checks in this process (default true) */
  worker?: boolean;
  channel?: Partial<ChannelSettings>;
  agent?: AgentOptions;
  handoff?: Partial<HandoffSettings>;
}

export async function createRuntime(
  deps: { config: Config; db: Db; catalog: Catalog; logger: Logger },
  opts: RuntimeOptions = {},
): Promise<Runtime> {
  const { config, db, catalog, logger } = deps;
  const guard = createOutboundGuard({ allowHosts: config.outboundAllowHosts });
  const states = createServiceStates(db);
  // Opened by main.ts once the server listens (linkcheck/deferred.ts), or by the first request for it.
  const queue = queueWhenOpen(async () => {
    // the worker (and the HTML tokenizer it reads pages with) loads with the queue, after the start
    const { linkCheckHandler, sweepHandler } = await import('./linkcheck/worker.ts');
    const opened = await openQueue(db, logger, {
      timing: opts.queueTiming ?? DEFAULT_TIMING,
      schedule: config.linkCheckSchedule,
    });
    if (opts.worker !== false) {
      await opened.work(
        linkCheckHandler({
          db,
          catalog,
          guard,
          logger,
          userAgent: `optout-linkcheck/1.0 (+${config.baseUrl}/docs)`,
          onRecorded: () => states.invalidate(),
        }),
        sweepHandler({ catalog, queue: opened, logger }),
      );
    }
    return opened;
  });
  const llm = createLlmClient(config.llm);
  const guides = createGuideService({
    db,
    llm,
    writerId: llm ? `${config.llm.provider}:${config.llm.model}` : 'template',
    timeoutMs: config.llm.timeoutMs,
    logger,
  });
  const quota = await createScanQuota(db, config.scanDailyLimit);
  const agent = await createAgentContext({ config, db, logger }, opts.agent);
  const channel = { ...DEFAULT_CHANNEL_SETTINGS, ...opts.channel };
  const attempts = await createAttemptLimits(db, config.limits);
  const sessionDeps = {
    guard,
    quota,
    attempts,
    logger,
    matchService: serviceMatcher(catalog),
    senders: auditCatalog(catalog, config.baseUrl),
    scanTimeoutMs: channel.scanMs,
    batchSize: channel.batchSize,
    caps: config.scanCaps,
    oauth: config.oauth.clientId ? { imap: config.oauth.imap, smtp: config.oauth.smtp } : null,
  };
  const sessions = createSessionStore(sessionDeps, { lifetimeMs: channel.lifetimeMs, keepMs: channel.keepMs });
  const handoffs = createHandoffStore(sessionDeps, { ...DEFAULT_HANDOFF_SETTINGS, ...opts.handoff });
  const oauth = await createOAuthService({ settings: config.oauth, baseUrl: config.baseUrl, db, logger });
  const retention = startRetention(
    [
      { name: 'scan_quota', run: (now) => purgeFinishedDays(db, now) },
      { name: 'rate_limits', run: (now) => purgeExpiredRateLimits(db, now) },
    ],
    logger,
  );
  return {
    guard,
    guides,
    quota,
    states,
    channel,
    sessions,
    handoffs,
    limits: {
      guide: createRateLimit(db, LIMITS.guide),
      linkCheck: createRateLimit(db, { ...LIMITS.linkCheck, points: config.limits.linkChecksPerIp }),
    },
    attempts,
    live: createLiveConnections([sessions, handoffs]),
    queue,
    agent,
    oauth,
    readiness: createReadiness(db, logger),
    retention,
    async close() {
      await retention.stop();
      sessions.close();
      handoffs.close();
      await oauth.close();
      await agent.close();
      await queue.stop();
      await attempts.close();
      await guard.close();
    },
  };
}
