/**
 * /.well-known/mcp/server-card.json, served only when there is an MCP server (mcp-registry.ts).
 * The SEP-2127 fields ($schema, name, version, description, remotes) and, for clients and
 * scanners that still read them, the earlier SEP-1649 ones (serverInfo, transport,
 * capabilities, authentication, tools). Tools come from the registry the server itself uses.
 */
import type { McpServerEntry } from './mcp-registry.ts';

export function serverCard(baseUrl: string, mcp: McpServerEntry) {
  const endpoint = `${baseUrl}${mcp.path}`;
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
    name: mcp.name,
    version: mcp.version,
    title: mcp.title,
    description: mcp.description,
    websiteUrl: baseUrl,
    remotes: [
      {
        type: 'streamable-http',
        url: endpoint,
        headers: [
          {
            name: 'Authorization',
            description: `Bearer api_key or access_token from POST ${baseUrl}/agent/auth (see ${baseUrl}/auth.md)`,
            isRequired: true,
            isSecret: true,
            value: 'Bearer {api_key}',
            variables: {
              api_key: { description: 'credential from agentic registration', isRequired: true, isSecret: true },
            },
          },
        ],
        supportedProtocolVersions: [...mcp.protocolVersions],
      },
    ],
    serverInfo: { name: mcp.name, version: mcp.version },
    protocolVersion: mcp.protocolVersions[0],
    transport: { type: 'streamable-http', endpoint },
    capabilities: { tools: { listChanged: false } },
    authentication: {
      required: true,
      schemes: ['bearer'],
      resource_metadata: `${baseUrl}/.well-known/oauth-protected-resource${mcp.path}`,
      registration: `${baseUrl}/auth.md`,
    },
    tools: mcp.tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      annotations: t.annotations,
      scopes: [...t.scopes],
    })),
  };
}
