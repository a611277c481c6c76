/**
 * SDK v1 over stdio: `McpServer` connected to its `StdioServerTransport`.
 *
 * @module
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { targetArgs } from './common.js';
import { buildSdk1Server } from './sdk1Server.js';

await buildSdk1Server(targetArgs().tools).connect(new StdioServerTransport());
