/**
 * What the MCP tools reach: the catalog and its link states, the guide writer and its limit,
 * the scan hand-offs, the scan quota. Made once per process from the runtime (app.ts); every
 * request's server closes over the same object.
 */
import type { Logger } from 'pino';
import type { Catalog } from '../catalog/load.ts';
import type { ServiceStates } from '../catalog/states.ts';
import type { GuideService } from '../guidance/guide/service.ts';
import type { HandoffStore } from '../handoff/store.ts';
import type { RateLimit } from '../http/rate-limit.ts';
import type { OAuthClient } from '../oauth/client.ts';
import type { ScanQuota } from '../quota/scan-quota.ts';

export interface McpDeps {
  catalog: Catalog;
  states: ServiceStates;
  guides: GuideService;
  /** the guide's per-client limit, counted here per agent registration */
  guideLimit: RateLimit;
  handoffs: HandoffStore;
  /** the Microsoft sign-in; null without OAUTH_CLIENT_ID (provider outlook is then not configured) */
  oauth: OAuthClient | null;
  quota: ScanQuota;
  /** BASE_URL: connect URLs are built from it */
  baseUrl: string;
  logger: Logger;
}
