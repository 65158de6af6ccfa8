/**
 * Every tool the MCP server registers, in the order tools/list names them. Adding a tool is
 * one line here (and its module): the server, the server card, the /mcp resource metadata and
 * the mcp-tools skill all read this list.
 */

import type { McpTool } from './tool.ts';
import { analyzeFriction, getGuide, getService, searchServices } from './tools/catalog.ts';

export const TOOLS: readonly McpTool[] = [searchServices, getService, getGuide, analyzeFriction];
