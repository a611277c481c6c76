/**
 * The official SDK v1 (`@modelcontextprotocol/sdk`) server shared by the v1 targets: `echo`
 * with a zod raw-shape input schema, plus filler tools. v1 speaks the 2025-era wire only.
 *
 * @module
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { EXTRA_DESCRIPTION, extraToolNames } from './common.js';

const inputSchema = { message: z.string() };

/** A fresh v1 `McpServer` with `echo` and `tools - 1` filler tools. */
export function buildSdk1Server(tools: number): McpServer {
  const server = new McpServer({ name: 'sdk1-bench', version: '0.0.0' });
  const echo = ({ message }: { message: string }): { content: { type: 'text'; text: string }[] } => ({
    content: [{ type: 'text', text: message }],
  });
  server.registerTool('echo', { description: 'Echoes the message back.', inputSchema }, echo);
  for (const name of extraToolNames(tools)) server.registerTool(name, { description: EXTRA_DESCRIPTION, inputSchema }, echo);
  return server;
}
