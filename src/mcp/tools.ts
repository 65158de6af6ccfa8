/**
 * Every tool the MCP server registers, in the order tools/list names them. Adding a tool is
 * one line here (and its module): the server, the server card, the /mcp resource metadata and
 * the mcp-tools skill all read this list.
 */
import type { McpTool } from './tool.ts';
import { batchUnsubscribe } from './tools/batch-unsubscribe.ts';
import { analyzeFriction, getGuide, getService, searchServices } from './tools/catalog.ts';
import { scanInbox } from './tools/scan-inbox.ts';
import { subscriptionAudit } from './tools/subscription-audit.ts';

export const TOOLS: readonly McpTool[] = [
  scanInbox,
  batchUnsubscribe,
  subscriptionAudit,
  searchServices,
  getService,
  getGuide,
  analyzeFriction,
];
