/**
 * The MCP client: `McpClient` (both protocol eras, one handler API), its options and types,
 * and the pieces it is built from (result cache, tool index, elicitation defaults).
 *
 * @module
 */
export { McpClient } from './mcpClient.js';
export { McpClientCalls, type Page, type StandardSchemaLike } from './calls.js';
export { ResultCache, type ResultCacheOptions } from './cache.js';
export { ToolIndex } from './toolIndex.js';
export { applyElicitationDefaults, capabilitiesFor } from './inputs.js';
export { httpStatusOf } from './negotiate.js';
export type {
  CallOptions,
  ClientEvents,
  ClientHandlers,
  ConnectOptions,
  Era,
  InputContext,
  ListenEnd,
  ListenOptions,
  ListOptions,
  LoggingLevel,
  McpClientOptions,
  ServerDescription,
  Subscription,
} from './types.js';
