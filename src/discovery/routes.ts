/**
 * The discovery documents (docs/agents.md, "Discovery"): OAuth metadata (RFC 9728, RFC 8414),
 * the API catalog (RFC 9727), the agent skills index and its skills, ai.txt, /auth.md, and the
 * MCP server card and /mcp resource metadata only when there is an MCP server. Every URL in
 * them comes from BASE_URL (and API_URL for the public API). All are rendered once at start and
 * served on GET and HEAD with CORS open to every origin (they are public and read by agents and
 * scanners from anywhere), a short shared cache, and an ETag answered with 304.
 * /.well-known/openapi.json is served by openapi.ts.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AgentSettings } from '../agent/settings.ts';
import type { Config } from '../config.ts';
import { aiTxt } from './ai-txt.ts';
import { apiCatalog, LINKSET_TYPE } from './api-catalog.ts';
import { agentDocuments } from './documents.ts';
import type { McpServerEntry } from './mcp-registry.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from './oauth-metadata.ts';
import { serverCard } from './server-card.ts';

export const DISCOVERY_CACHE = 'public, max-age=300';

const JSON_TYPE = 'application/json; charset=utf-8';

export interface DiscoveryOptions {
  config: Pick<Config, 'baseUrl' | 'apiUrl'>;
  settings: AgentSettings;
  mcp: McpServerEntry | null;
}

export async function discoveryRoutes(app: FastifyInstance, { config, settings, mcp }: DiscoveryOptions) {
  const base = config.baseUrl;
  const docs = agentDocuments(config, settings, mcp);

  const serve = (
    path: string,
    type: string,
    content: string | Buffer | object,
    headers: Record<string, string> = {},
  ) => {
    const body = Buffer.isBuffer(content)
      ? content
      : Buffer.from(typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    const fixed = {
      'content-type': type,
      'cache-control': DISCOVERY_CACHE,
      etag,
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'ETag, Link',
      ...headers,
    };
    // GET; Fastify answers HEAD from the same route with the same headers and no body.
    app.get(path, { schema: { hide: true } }, (req, reply) => {
      reply.headers(fixed);
      const match = req.headers['if-none-match'];
      if (match?.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) return reply.code(304).send();
      return reply.send(body);
    });
    app.options(path, { schema: { hide: true } }, (_req, reply) =>
      reply
        .code(204)
        .headers({
          'access-control-allow-origin': '*',
          'access-control-allow-methods': 'GET, HEAD, OPTIONS',
          'access-control-allow-headers': 'If-None-Match',
          'access-control-max-age': '86400',
        })
        .send(),
    );
  };

  serve('/.well-known/oauth-protected-resource', JSON_TYPE, protectedResourceMetadata(base));
  serve('/.well-known/oauth-authorization-server', JSON_TYPE, authorizationServerMetadata(base));
  serve('/.well-known/api-catalog', LINKSET_TYPE, apiCatalog({ baseUrl: base, apiUrl: config.apiUrl, mcp }), {
    // RFC 9727 §2: the catalog names itself with a Link header, on HEAD too.
    link: `<${base}/.well-known/api-catalog>; rel="api-catalog"`,
  });
  serve('/.well-known/agent-skills/index.json', JSON_TYPE, docs.skillsIndex);
  for (const s of docs.skills) serve(s.path, 'text/markdown; charset=utf-8', s.body);
  serve('/.well-known/ai.txt', 'text/plain; charset=utf-8', aiTxt(base, mcp));
  serve('/auth.md', 'text/markdown; charset=utf-8', docs.authMd);
  if (mcp) {
    serve(`/.well-known/oauth-protected-resource${mcp.path}`, JSON_TYPE, protectedResourceMetadata(base, mcp));
    serve('/.well-known/mcp/server-card.json', JSON_TYPE, serverCard(base, mcp));
  }
}
