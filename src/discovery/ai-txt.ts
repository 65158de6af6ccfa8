/**
 * /.well-known/ai.txt. No standard defines it (Spawning's robots-style ai.txt and an individual
 * Internet-Draft disagree; docs/agents.md); this one is robots.txt syntax (RFC 9309), so any
 * robots parser reads it, with comments that point agents at the machine-readable documents.
 */
import type { McpServerEntry } from './mcp-registry.ts';

export function aiTxt(baseUrl: string, mcp: McpServerEntry | null): string {
  const w = `${baseUrl}/.well-known`;
  return [
    '# ai.txt for optout',
    `# Agents: read ${baseUrl}/auth.md first (agentic registration: an anonymous api_key, or a verified-email claim).`,
    `# API catalog (RFC 9727): ${w}/api-catalog`,
    `# OpenAPI: ${w}/openapi.json`,
    `# OAuth metadata: ${w}/oauth-protected-resource , ${w}/oauth-authorization-server`,
    `# Agent skills: ${w}/agent-skills/index.json`,
    ...(mcp
      ? [`# MCP server card: ${w}/mcp/server-card.json (endpoint ${baseUrl}${mcp.path}, Authorization: Bearer)`]
      : []),
    '',
    'User-Agent: *',
    'Allow: /',
    // the claim pages and the scan hand-off pages belong to one person each
    'Disallow: /agent/auth/claim/view',
    'Disallow: /connect',
    '',
  ].join('\n');
}
