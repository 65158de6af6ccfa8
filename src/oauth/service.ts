/**
 * The Microsoft sign-in as the rest of optout sees it: whether it is configured, the client,
 * the browser sessions and the sealer of sign-in cookies. Made once per process (runtime.ts).
 */
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Db } from '../storage/index.ts';
import { createOAuthClient, type OAuthClient } from './client.ts';
import { createFlowSealer, type FlowSealer } from './flow-cookie.ts';
import { type CookieNames, cookieNames, createSessions, type OAuthSessions } from './sessions.ts';
import type { OAuthSettings } from './settings.ts';

export interface OAuthService {
  /** null without OAUTH_CLIENT_ID: the provider is shown as not configured */
  client: OAuthClient | null;
  settings: OAuthSettings;
  sessions: OAuthSessions;
  sealer: FlowSealer;
  cookies: CookieNames;
  close(): Promise<void>;
}

export async function createOAuthService(deps: {
  settings: OAuthSettings;
  baseUrl: string;
  db: Db;
  logger: Logger;
}): Promise<OAuthService> {
  const { settings } = deps;
  const sessions = createSessions();
  return {
    client: settings.clientId ? createOAuthClient(settings, deps.logger.child({ component: 'oauth' })) : null,
    settings,
    sessions,
    sealer: await createFlowSealer(deps.db),
    cookies: cookieNames(deps.baseUrl),
    close: () => sessions.close(),
  };
}
