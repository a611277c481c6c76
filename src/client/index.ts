/**
 * The MCP client: `McpClient` (both protocol eras, one handler API), its options and types,
 * and the pieces it is built from (result cache, tool index, elicitation defaults).
 *
 * @module
 */
export { McpClient } from './mcpClient.js';
export { isInputRequired, McpClientCalls, type Page, type SendOutcome, type StandardSchemaLike } from './calls.js';
export { ResultCache, type ResultCacheOptions } from './cache.js';
export { ToolIndex } from './toolIndex.js';
export { applyElicitationDefaults, capabilitiesFor } from './inputs.js';
export { httpStatusOf } from './negotiate.js';
export type {
  AutoCallOptions,
  CallOptions,
  ClientClosedEvent,
  ClientEvents,
  ClientHandlers,
  ConnectOptions,
  Era,
  InputContext,
  InputMode,
  InputRequiredResult,
  ListenEnd,
  ListenOptions,
  ListOptions,
  LoggingLevel,
  ManualCallOptions,
  McpClientOptions,
  ServerDescription,
  Subscription,
  TransportFactory,
} from './types.js';
