/**
 * /mcp: the MCP Streamable HTTP endpoint (MCP 2025-11-25 basic/transports; the SDK serves the
 * 2026-07-28 revision from the same handler), stateless per request — the SDK's handler builds a
 * fresh server for every request, so any instance can answer any request.
 *
 * In front of the SDK, in this order:
 * - Origin: a browser page from another origin cannot drive the endpoint (the transports spec
 *   asks servers to validate Origin, against DNS rebinding); clients that send none are not
 *   browsers.
 * - Bearer (src/agent/bearer.ts): 401 with `WWW-Authenticate … resource_metadata` pointing at
 *   this endpoint's RFC 9728 document; the credential is checked against the live store on
 *   every request, so a revoked key fails at its next call. Scopes are checked per tool
 *   (server.ts), not here: tools/list answers every valid credential.
 * The body is handed to the SDK unparsed, so malformed JSON-RPC gets the JSON-RPC error the
 * SDK writes (-32700 and friends), not the public API's envelope. Bodies are never logged.
 */
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createBearerAuth } from '../agent/bearer.ts';
import type { AgentContext } from '../agent/context.ts';
import type { AgentPrincipal } from '../agent/credentials.ts';
import type { Config } from '../config.ts';
import type { McpServerEntry } from '../discovery/mcp-registry.ts';
import type { McpDeps } from './deps.ts';

type McpHandler = ReturnType<typeof import('@modelcontextprotocol/server')['createMcpHandler']>;

export interface McpRouteOptions {
  config: Pick<Config, 'baseUrl' | 'allowedOrigins'>;
  agent: AgentContext;
  deps: McpDeps;
  entry: McpServerEntry;
}

/** batch_unsubscribe may name 2000 subscription ids */
const BODY_LIMIT = 512 * 1024;
/** hop-by-hop and framing headers that describe Fastify's request, not the one rebuilt here */
const DROP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade']);

const principals = new WeakMap<AuthInfo, AgentPrincipal>();

export async function mcpRoutes(app: FastifyInstance, { config, agent, deps, entry }: McpRouteOptions) {
  const base = config.baseUrl;
  const auth = createBearerAuth(agent, {
    resourceMetadataUrl: `${base}/.well-known/oauth-protected-resource${entry.path}`,
  });
  const allowedOrigins = new Set([new URL(base).origin, ...config.allowedOrigins]);
  // The SDK and the server built on it (~5 MiB of heap) load with the first request to /mcp; the
  // discovery documents need neither (entry.ts).
  let handler: Promise<McpHandler> | undefined;
  const mcpHandler = () =>
    (handler ??= (async () => {
      const [{ createMcpHandler }, { createMcpServer }] = await Promise.all([
        import('@modelcontextprotocol/server'),
        import('./server.ts'),
      ]);
      return createMcpHandler(
        ({ authInfo }) => {
          const principal = authInfo && principals.get(authInfo);
          if (!principal) throw new Error('an MCP server was asked for without an admitted caller');
          return createMcpServer(deps, entry, principal);
        },
        {
          // 'auto': one JSON body, since no tool sends anything before its result.
          maxRequestBodySize: BODY_LIMIT,
          onerror: (err) => deps.logger.debug({ err: { message: err.message } }, 'MCP request refused'),
        },
      );
    })());
  app.addHook('onClose', async () => {
    if (handler) (await handler).close();
  });

  // The SDK parses and validates the JSON-RPC itself; Fastify only collects the bytes.
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body));
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) =>
    done(null, body),
  );

  const serve = async (req: FastifyRequest, reply: FastifyReply) => {
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin)) {
      return reply.code(403).send({ error: 'forbidden', message: 'this Origin may not use the MCP endpoint' });
    }
    const v = await auth.check(req.headers.authorization, []);
    if (!v.ok) {
      return reply
        .code(v.status)
        .header('www-authenticate', v.challenge)
        .header('cache-control', 'no-store')
        .send({ error: v.error, message: v.message });
    }
    const headers = new Headers();
    for (const [k, value] of Object.entries(req.headers)) {
      if (DROP.has(k) || value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) headers.append(k, one);
    }
    const body = typeof req.body === 'string' && req.method === 'POST' ? req.body : undefined;
    const authInfo: AuthInfo = {
      token: v.token,
      clientId: v.principal.registrationId,
      scopes: [...v.principal.scopes],
      expiresAt: v.principal.expiresAt ? Math.floor(v.principal.expiresAt.getTime() / 1000) : undefined,
    };
    principals.set(authInfo, v.principal);
    const res = await (await mcpHandler()).fetch(
      new Request(`${base}${req.url}`, { method: req.method, headers, body }),
      {
        authInfo,
      },
    );
    reply.header('cache-control', 'no-store');
    return reply.send(res);
  };

  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: entry.path,
    bodyLimit: BODY_LIMIT,
    schema: { hide: true },
    handler: serve,
  });
}
