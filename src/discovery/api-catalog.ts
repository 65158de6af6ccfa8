/**
 * /.well-known/api-catalog (RFC 9727): a linkset (RFC 9264 §4.2, application/linkset+json) with
 * one context per API this service offers — the public API under API_URL/api/v1, agent
 * registration under BASE_URL/agent/auth, and the MCP endpoint once there is one — each linked
 * to its description, documentation and metadata with the RFC 8631 relations.
 */
import type { McpServerEntry } from './mcp-registry.ts';

export const API_CATALOG_PROFILE = 'https://www.rfc-editor.org/info/rfc9727';
export const LINKSET_TYPE = `application/linkset+json; profile="${API_CATALOG_PROFILE}"`;

const link = (href: string, type: string) => ({ href, type });

export function apiCatalog(o: { baseUrl: string; apiUrl: string; mcp: McpServerEntry | null }) {
  const { baseUrl, apiUrl, mcp } = o;
  const openapi = link(`${baseUrl}/.well-known/openapi.json`, 'application/openapi+json');
  const authMd = link(`${baseUrl}/auth.md`, 'text/markdown');
  const linkset: Record<string, unknown>[] = [
    {
      anchor: `${apiUrl}/api/v1`,
      'service-desc': [openapi],
      'service-doc': [link(`${baseUrl}/docs`, 'text/html')],
      status: [link(`${baseUrl}/healthz`, 'application/json')],
    },
    {
      anchor: `${baseUrl}/agent/auth`,
      'service-desc': [openapi],
      'service-doc': [authMd],
      'service-meta': [
        link(`${baseUrl}/.well-known/oauth-authorization-server`, 'application/json'),
        link(`${baseUrl}/.well-known/oauth-protected-resource`, 'application/json'),
        link(`${baseUrl}/.well-known/agent-skills/index.json`, 'application/json'),
      ],
    },
  ];
  if (mcp) {
    linkset.push({
      anchor: `${baseUrl}${mcp.path}`,
      'service-desc': [link(`${baseUrl}/.well-known/mcp/server-card.json`, 'application/json')],
      'service-doc': [authMd],
      'service-meta': [link(`${baseUrl}/.well-known/oauth-protected-resource${mcp.path}`, 'application/json')],
    });
  }
  return { linkset };
}
