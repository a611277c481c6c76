/**
 * SDK v2 over stdio: `serveStdio(factory)` from `@modelcontextprotocol/server/stdio`.
 *
 * @module
 */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { targetArgs } from './common.js';
import { buildSdk2Server } from './sdk2Server.js';

const { tools } = targetArgs();
serveStdio(() => buildSdk2Server(tools));
