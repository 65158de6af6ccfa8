/**
 * The error catalog of the MCP tools (docs/agents.md, "MCP tools"). A tool that cannot do
 * what it was asked answers with an ordinary result marked `isError` (MCP 2025-11-25,
 * server/tools "Error Handling": tool execution errors go in the result, where the model reads
 * them), whose `structuredContent` is `{error: {code, message}}` and whose text starts with the
 * code. Agents act on `code`; `message` is for people and never carries a secret.
 *
 * Codes are lower snake case like the agent registration protocol's (`insufficient_scope` is
 * the same word in both). docs/agents.md lists the same table (mcp.test.ts holds them together).
 */
import type { CallToolResult } from '@modelcontextprotocol/server';

export const MCP_ERRORS = {
  insufficient_scope:
    'the credential lacks a scope the tool needs: a person must claim the registration (auth.md#claim)',
  not_found: 'no service with that slug',
  rate_limited: 'too many calls of this tool; `retry_after` says how many seconds to wait',
  llm_unavailable: 'the guide writer is momentarily unavailable; `retry_after` says when to retry',
  provider_not_configured:
    'this server has no Microsoft sign-in set up (OAUTH_CLIENT_ID): outlook cannot be scanned here',
  provider_unavailable: 'the identity provider could not start a sign-in now; retry later',
  scan_quota_exceeded: 'no scans left today for this mailbox; `resets_at` says when',
  too_many_handoffs: 'this agent already holds the most live scans it may; wait for one to reach its expires_at',
  scan_expired: 'unknown scan_id, or its hand-off ended: results and credentials are wiped at `expires_at`',
  scan_not_ready: 'the scan has no results yet: the person has not signed in, or it is still running',
  busy: 'an unsubscribe batch (or the scan) is running for this scan_id; scan_inbox reports it',
  no_scan: 'no finished scan of this address among the agent’s live scans: scan_inbox first (scans end at expires_at)',
  audit_running: 'the audit is still reading receipts; call again after `retry_after` seconds',
  audit_failed: 'the mail server could not be read for the audit (the sign-in or the connection failed); scan again',
  internal: 'a bug on our side',
} as const;

export type McpErrorCode = keyof typeof MCP_ERRORS;

/** What a tool reports when it cannot do what it was asked (expected outcomes, never thrown). */
export interface ToolFailure {
  ok: false;
  code: McpErrorCode;
  message: string;
  /** extra members of `error`, e.g. resets_at or retry_after */
  details?: Record<string, string | number>;
}

export const toolFailure = (
  code: McpErrorCode,
  message: string,
  details?: Record<string, string | number>,
): ToolFailure => ({ ok: false, code, message, ...(details ? { details } : {}) });

export function errorResult(f: ToolFailure): CallToolResult {
  const error = { code: f.code, message: f.message, ...f.details };
  return {
    content: [{ type: 'text', text: `${f.code}: ${f.message}` }],
    structuredContent: { error },
    isError: true,
  };
}
