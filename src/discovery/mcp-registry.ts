/**
 * The MCP server as every discovery document describes it: the server card, the agent-skills
 * index, the API catalog, the protected-resource metadata of /mcp and ai.txt all read one
 * entry, which src/mcp/entry.ts (mcpServerEntry) builds from the very list of tools the server
 * registers, so a document can never name a tool the server lacks or miss one it has.
 *
 * Given no entry (null), the documents mention no /mcp at all — no card, no /mcp metadata, no
 * MCP skill — rather than describe an endpoint that answers 404 (docs/agents.md, "Discovery").
 */
import type { Scope } from '../agent/scopes.ts';

export interface McpToolEntry {
  name: string;
  title: string;
  description: string;
  /** what the Bearer middleware must find on the credential before the tool runs */
  scopes: readonly Scope[];
  /** MCP tool annotations (hints, not guarantees) */
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

export interface McpServerEntry {
  /** path of the Streamable HTTP endpoint under BASE_URL, e.g. "/mcp" */
  path: string;
  /** reverse-DNS "namespace/name", as the server reports it at initialize */
  name: string;
  version: string;
  title: string;
  /** at most 100 characters (server card) */
  description: string;
  /** MCP protocol versions the server negotiates, newest first */
  protocolVersions: readonly string[];
  tools: readonly McpToolEntry[];
}
