/**
 * What one MCP tool is: its name and description as agents see them, the scopes a credential
 * must carry, MCP annotations, zod schemas for input and output (the SDK derives the JSON
 * Schema from them and validates both), and `run`, which returns its result or a ToolFailure
 * as data. The server (server.ts) registers every tool of tools.ts from these definitions, and
 * the discovery documents describe the same list, so they cannot disagree.
 */
import type { z } from 'zod';
import type { AgentPrincipal } from '../agent/credentials.ts';
import type { McpToolEntry } from '../discovery/mcp-registry.ts';
import type { McpDeps } from './deps.ts';
import type { ToolFailure } from './errors.ts';

export interface ToolCall {
  deps: McpDeps;
  /** who is calling (the Bearer middleware admitted them) */
  principal: AgentPrincipal;
}

export type ToolOutcome<T> = { ok: true; value: T } | ToolFailure;

// biome-ignore lint/suspicious/noExplicitAny: a list holds tools of many shapes; defineTool types each one
type AnyObject = z.ZodObject<any>;

export interface McpTool<I extends AnyObject = AnyObject, O extends AnyObject = AnyObject> extends McpToolEntry {
  input: I;
  output: O;
  run(args: z.output<I>, call: ToolCall): Promise<ToolOutcome<z.input<O>>>;
}

/** Types `run` by the schemas; the result fits any list of tools. */
export const defineTool = <I extends AnyObject, O extends AnyObject>(tool: McpTool<I, O>): McpTool =>
  tool as unknown as McpTool;

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
