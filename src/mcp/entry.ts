/**
 * The MCP server as the discovery documents describe it (mcpServerEntry), without the MCP SDK:
 * the documents are made at start, while the SDK (~5 MiB of heap with its schemas) is loaded by
 * the first request to /mcp (routes.ts). The protocol versions are the SDK's, written out here;
 * entry.test.ts holds them to the SDK's own list, so an upgrade of the SDK cannot leave them behind.
 */
import type { McpServerEntry } from '../discovery/mcp-registry.ts';
import type { McpTool } from './tool.ts';
import { TOOLS } from './tools.ts';

/**
 * The 2026-07-28 revision (the SDK's "modern" era), then the 2025-era revisions it also serves
 * (the SDK's SUPPORTED_PROTOCOL_VERSIONS), newest first.
 */
export const PROTOCOL_VERSIONS: readonly string[] = [
  '2026-07-28',
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];

const VERSION = '1.0.0';

/** `optout.example` → `example.optout/inbox`: the server card's reverse-DNS name. */
export function serverName(baseUrl: string): string {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  const labels = /^[\d.]+$/.test(host) || host.includes(':') ? ['local', 'optout'] : host.split('.').reverse();
  return `${labels.join('.').replace(/[^a-zA-Z0-9.-]/g, '-')}/inbox`;
}

export function mcpServerEntry(baseUrl: string, tools: readonly McpTool[] = TOOLS): McpServerEntry {
  return {
    path: '/mcp',
    name: serverName(baseUrl),
    version: VERSION,
    title: 'optout',
    description: 'Scan an inbox for subscriptions, unsubscribe in bulk, and learn how to cancel paid services.',
    protocolVersions: PROTOCOL_VERSIONS,
    tools: tools.map(({ name, title, description, scopes, annotations }) => ({
      name,
      title,
      description,
      scopes,
      annotations,
    })),
  };
}
