/**
 * Builds the Switchboard `McpServer` every "ours" target serves: the `echo` tool with a
 * one-field JSON Schema, plus filler tools for the `tools/list` scenario. The page size covers
 * every tool so `tools/list` answers in one page, like the SDKs do.
 *
 * @module
 */
import { McpServer } from 'switchboard/server';
import { EXTRA_DESCRIPTION, extraToolNames } from './common.js';

const schema = {
  type: 'object',
  properties: { message: { type: 'string' } },
  required: ['message'],
} as const;

/** A server with `echo` and `tools - 1` filler tools. */
export function buildOurServer(tools: number): McpServer {
  const server = new McpServer({ name: 'switchboard-bench', version: '0.0.0' }, { pageSize: Math.max(100, tools) });
  const echo = (args: { message?: unknown }): { content: { type: 'text'; text: string }[] } => ({
    content: [{ type: 'text', text: String(args.message) }],
  });
  server.tool('echo', { description: 'Echoes the message back.', inputSchema: schema }, echo);
  for (const name of extraToolNames(tools)) server.tool(name, { description: EXTRA_DESCRIPTION, inputSchema: schema }, echo);
  return server;
}
