/**
 * The official SDK v2 (`@modelcontextprotocol/server`) server factory shared by the v2
 * targets: `echo` with a zod input schema, plus filler tools.
 *
 * @module
 */
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { EXTRA_DESCRIPTION, extraToolNames } from './common.js';

const inputSchema = z.object({ message: z.string() });

/** A fresh v2 `McpServer` with `echo` and `tools - 1` filler tools. */
export function buildSdk2Server(tools: number): McpServer {
  const server = new McpServer({ name: 'sdk2-bench', version: '0.0.0' });
  const echo = ({ message }: { message: string }): { content: { type: 'text'; text: string }[] } => ({
    content: [{ type: 'text', text: message }],
  });
  server.registerTool('echo', { description: 'Echoes the message back.', inputSchema }, echo);
  for (const name of extraToolNames(tools)) server.registerTool(name, { description: EXTRA_DESCRIPTION, inputSchema }, echo);
  return server;
}
