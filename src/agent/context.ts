/**
 * The long-lived parts of agent registration, made once per process (runtime.ts): the
 * database, the HMAC key, the service mailer, the revocation bus, the per-IP limits and the
 * settings. Every logic module takes this one context.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { createRateLimit, type RateLimit } from '../http/rate-limit.ts';
import { createServiceMailer, type ServiceMailer } from '../mail/service-mailer.ts';
import { serverSecret } from '../quota/secret.ts';
import type { Db } from '../storage/index.ts';
import { createRevocationBus, type RevocationBus } from './revocation-bus.ts';
import { type AgentSettings, DEFAULT_AGENT_SETTINGS } from './settings.ts';

export interface AgentContext {
  db: Db;
  /** HMAC key for low-entropy values (codes, email addresses); shared by every instance */
  key: Buffer;
  baseUrl: string;
  settings: AgentSettings;
  mailer: ServiceMailer;
  bus: RevocationBus;
  limits: Record<keyof AgentSettings['limits'], RateLimit>;
  logger: Logger;
  close(): Promise<void>;
}

export type AgentOptions = Partial<Omit<AgentSettings, 'lifetimes' | 'limits'>> & {
  lifetimes?: Partial<AgentSettings['lifetimes']>;
  limits?: Partial<AgentSettings['limits']>;
};

export async function createAgentContext(
  deps: { config: Config; db: Db; logger: Logger },
  opts: AgentOptions = {},
): Promise<AgentContext> {
  const { config, db, logger } = deps;
  const d = DEFAULT_AGENT_SETTINGS;
  const settings: AgentSettings = {
    ...d,
    ...opts,
    lifetimes: { ...d.lifetimes, ...opts.lifetimes },
    limits: { ...d.limits, ...opts.limits },
  };
  const limitEntries = Object.entries(settings.limits).map(([k, spec]) => [k, createRateLimit(db, spec)]);
  const mailer = createServiceMailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    dataDir: config.dataDir,
    logger,
  });
  const bus = createRevocationBus(db, logger);
  return {
    db,
    key: await serverSecret(db, 'agent-auth-hmac'),
    baseUrl: config.baseUrl,
    settings,
    mailer,
    bus,
    limits: Object.fromEntries(limitEntries) as AgentContext['limits'],
    logger,
    async close() {
      mailer.close();
      await bus.close();
    },
  };
}

/** `now` plus `seconds`, as the Date the database stores. */
export const inSeconds = (ctx: AgentContext, seconds: number) => new Date(ctx.settings.now() + seconds * 1000);
export const nowOf = (ctx: AgentContext) => new Date(ctx.settings.now());
