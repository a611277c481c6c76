/**
 * `createEverythingServer`: the demo server that exposes every MCP feature under the names
 * the official conformance suite calls (its server scenarios), built only on the public
 * `McpServer` API. The CLI serves it (`switchboard everything`); tests and benchmarks drive
 * it in-process over the in-memory transport.
 *
 * @module
 */
import { McpServer } from '../../server/mcpServer.js';
import type { Logger } from '../../util/logger.js';
import { SWITCHBOARD_VERSION } from '../../util/version.js';
import { EVERYTHING_SERVER_NAME } from './fixtures.js';
import { registerInputTools } from './inputTools.js';
import { registerMrtrTools } from './mrtrTools.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { everythingTaskMode, registerTaskTools } from './taskTools.js';
import { registerTools } from './tools.js';

/** The instructions returned by `server/discover`. */
export const EVERYTHING_INSTRUCTIONS =
  'switchboard-everything is a test server that exercises every MCP feature: tools returning each content type, ' +
  'logging and progress, tools that ask for input (elicitation, sampling, roots) over multi round-trip requests, ' +
  'static, binary, templated and watched resources, prompts with arguments and completion, and triggers that change ' +
  'the tool and prompt lists. Use echo to check connectivity.';

/** Options of {@link createEverythingServer}. */
export interface EverythingOptions {
  /** Where the server logs (never stdout). */
  readonly logger?: Logger;
  /** Milliseconds between updates of `test://watched-resource`. Default 3000; 0 turns them off. The timer stops when the server closes. */
  readonly watchIntervalMs?: number;
}

/** Builds the `everything` server with every tool, resource, template, prompt and completion. */
export function createEverythingServer(options: EverythingOptions = {}): McpServer {
  const server = new McpServer(
    { name: EVERYTHING_SERVER_NAME, version: SWITCHBOARD_VERSION, instructions: EVERYTHING_INSTRUCTIONS },
    { ...(options.logger === undefined ? {} : { logger: options.logger }), tasks: { mode: everythingTaskMode } },
  );
  const prompts = registerPrompts(server);
  registerTools(server, { togglePrompt: () => prompts.toggle() });
  registerInputTools(server);
  registerMrtrTools(server);
  registerTaskTools(server);
  registerResources(server, { watchIntervalMs: options.watchIntervalMs ?? 3000 });
  return server;
}
