/**
 * What the demo story's servers (`web.ts`, `mail.ts`) share: the server named
 * `switchboard-demo-<name>` with its instructions, and the logger option (never stdout: stdout
 * is the stdio transport).
 *
 * @module
 */
import { McpServer } from '../../server/mcpServer.js';
import type { Logger } from '../../util/logger.js';
import { SWITCHBOARD_VERSION } from '../../util/version.js';

/** The options every story server takes. */
export interface StoryServerOptions {
  /** Where the server logs (never stdout). */
  readonly logger?: Logger;
}

/** An empty story server `switchboard-demo-<name>` with `instructions`, logging to `options.logger`. */
export function storyServer(name: string, instructions: string, options: StoryServerOptions): McpServer {
  return new McpServer({ name: `switchboard-demo-${name}`, version: SWITCHBOARD_VERSION, instructions }, options.logger === undefined ? {} : { logger: options.logger });
}
