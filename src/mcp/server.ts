/**
 * The MCP server of optout: the per-request factory the Streamable HTTP handler calls
 * (createMcpServer); its description for the discovery documents is entry.ts. Each request
 * gets a fresh McpServer bound to the caller the Bearer middleware admitted, so nothing lives
 * between requests and any instance can answer any request.
 *
 * Every tool runs the same way: the credential's scopes are checked first (a missing one is an
 * `insufficient_scope` tool error — the remedy is a person's claim, not an OAuth step-up), then
 * `run`; its failure is an `isError` result with a stable code (errors.ts). The arguments are
 * never logged; a bug is logged by tool name only.
 */
import { type CallToolResult, McpServer } from '@modelcontextprotocol/server';
import type { AgentPrincipal } from '../agent/credentials.ts';
import type { McpServerEntry } from '../discovery/mcp-registry.ts';
import type { McpDeps } from './deps.ts';
import { errorResult, toolFailure } from './errors.ts';
import type { McpTool } from './tool.ts';
import { TOOLS } from './tools.ts';

const INSTRUCTIONS =
  'Catalog tools (search_services, get_service, get_guide, analyze_friction) answer at once. ' +
  'scan_inbox never takes a password: it returns a connect_url for the person, who signs in there ' +
  '(for outlook: a verification_uri and user_code to relay); call scan_inbox again with only the scan_id ' +
  'for progress and results. batch_unsubscribe needs a claimed registration. Results are wiped at expires_at.';

export function createMcpServer(
  deps: McpDeps,
  entry: McpServerEntry,
  principal: AgentPrincipal,
  tools: readonly McpTool[] = TOOLS,
): McpServer {
  const server = new McpServer(
    { name: entry.name, version: entry.version, title: entry.title },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: tool.annotations,
      },
      (args: unknown) => runTool(tool, args, deps, principal),
    );
  }
  return server;
}

async function runTool(
  tool: McpTool,
  args: unknown,
  deps: McpDeps,
  principal: AgentPrincipal,
): Promise<CallToolResult> {
  const missing = tool.scopes.filter((s) => !principal.scopes.includes(s));
  if (missing.length) {
    const why = principal.claimed
      ? `this credential lacks ${missing.join(' ')}`
      : `${tool.name} needs ${missing.join(' ')}, granted when a person claims the registration (auth.md#claim)`;
    return errorResult(toolFailure('insufficient_scope', why, { scope: tool.scopes.join(' ') }));
  }
  try {
    const r = await tool.run(args as never, { deps, principal });
    if (!r.ok) return errorResult(r);
    return { content: [{ type: 'text', text: JSON.stringify(r.value) }], structuredContent: r.value };
  } catch (err) {
    deps.logger.error({ err, tool: tool.name, agent: principal.hint }, 'MCP tool failed');
    return errorResult(toolFailure('internal', 'the tool failed on our side; it was logged'));
  }
}
