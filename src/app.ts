/**
 * Builds the Fastify application from the capability plugins. It does not listen and
 * owns nothing it was given: main.ts opens storage and closes it after the app.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { agentRoutes } from './agent/routes.ts';
import type { Catalog } from './catalog/load.ts';
import { catalogRoutes } from './catalog/routes.ts';
import { channelRoutes } from './channel/ws-route.ts';
import type { Config } from './config.ts';
import { openApiRoute, registerOpenApi } from './discovery/openapi.ts';
import { discoveryRoutes } from './discovery/routes.ts';
import { analyzerRoutes } from './guidance/analyzer.routes.ts';
import { guideRoutes } from './guidance/guide/routes.ts';
import { healthRoutes } from './health/routes.ts';
import { AccessLog } from './http/access-log.ts';
import { publicApiPreflight } from './http/cors.ts';
import { frameworkErrors } from './http/error-handler.ts';
import { installPlumbing } from './http/plumbing.ts';
import { linkCheckRoutes } from './linkcheck/routes.ts';
import { withDeferredRequestLoggers } from './log-request.ts';
import { mcpServerEntry } from './mcp/entry.ts';
import { mcpRoutes } from './mcp/routes.ts';
import { oauthRoutes } from './oauth/routes.ts';
import type { Runtime } from './runtime.ts';
import type { Db } from './storage/index.ts';
import { connectRoutes } from './web/connect/routes.ts';
import { isPagePath, notFoundPage } from './web/not-found.ts';
import { webRoutes } from './web/pages.ts';

export interface AppDeps {
  config: Config;
  db: Db;
  catalog: Catalog;
  logger: Logger;
  runtime: Runtime;
}

/** JSON bodies of the public API are small; anything larger is refused with 413. */
const BODY_LIMIT = 64 * 1024;

export async function buildApp({ config, catalog, logger, runtime }: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    // request loggers made on first use (src/log-request.ts)
    loggerInstance: withDeferredRequestLoggers(logger) as FastifyBaseLogger,
    trustProxy: config.trustProxy,
    bodyLimit: BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    return503OnClosing: true,
    // one access-log line per request instead of Fastify's two (src/http/access-log.ts)
    logController: new AccessLog(logger, config.logSlowMs),
    frameworkErrors,
  }).withTypeProvider<ZodTypeProvider>();

  await installPlumbing(app, {
    https: config.baseUrl.startsWith('https:'),
    // sign-out is a form whose answer redirects to the provider's end-session endpoint
    formActionOrigins: runtime.oauth.client ? [new URL(config.oauth.issuer).origin] : [],
    pageNotFound: { isPagePath, render: notFoundPage },
  });
  await registerOpenApi(app, config);

  await app.register(
    async (api) => {
      // every /api/v1 response carries the CORS headers (plumbing.ts); preflights are answered here
      publicApiPreflight(api);
      await api.register(catalogRoutes, { catalog, states: runtime.states });
      await api.register(analyzerRoutes, { catalog });
      await api.register(guideRoutes, { catalog, guides: runtime.guides, limit: runtime.limits.guide });
      await api.register(linkCheckRoutes, { catalog, queue: runtime.queue, limit: runtime.limits.linkCheck });
    },
    { prefix: '/api/v1' },
  );

  await app.register(channelRoutes, {
    config,
    sessions: runtime.sessions,
    live: runtime.live,
    dailyLimit: runtime.quota.limit,
    settings: runtime.channel,
    oauth: runtime.oauth,
    connections: runtime.attempts.connections,
  });
  await app.register(agentRoutes, { prefix: '/agent/auth', ctx: runtime.agent });
  await app.register(oauthRoutes, { config, oauth: runtime.oauth });
  const mcp = mcpServerEntry(config.baseUrl);
  await app.register(mcpRoutes, {
    config,
    agent: runtime.agent,
    entry: mcp,
    deps: {
      catalog,
      states: runtime.states,
      guides: runtime.guides,
      guideLimit: runtime.limits.guide,
      handoffs: runtime.handoffs,
      oauth: runtime.oauth.client,
      quota: runtime.quota,
      baseUrl: config.baseUrl,
      logger,
    },
  });
  await app.register(connectRoutes, { handoffs: runtime.handoffs });
  openApiRoute(app);
  await discoveryRoutes(app, { config, settings: runtime.agent.settings, mcp });
  await webRoutes(app, { config, catalog, states: runtime.states });
  await healthRoutes(app, { readiness: runtime.readiness });
  return app;
}
