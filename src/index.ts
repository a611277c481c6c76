/**
 * Switchboard: a complete, fast and security-first implementation of the Model Context
 * Protocol. The root export is the common, runtime-neutral surface (no `node:` imports); each
 * layer also has its own subpath (`switchboard/jsonrpc`, `/protocol`, `/transport`,
 * `/transport/http`, `/server`), and the Node-only pieces live at `switchboard/transport/stdio`,
 * `switchboard/adapters/node` and (for a host) `switchboard/adapters/node-host`.
 *
 * @module
 */
export { McpServer, type McpServerOptions } from './server/mcpServer.js';
export { ToolError } from './server/tools.js';
export type { HandlerContext, ToolDefinition, ResourceDefinition, PromptDefinition, ServerInfo } from './server/types.js';
export { Connection, type ConnectionOptions, type RequestOptions } from './jsonrpc/connection.js';
export { JsonRpcError, ErrorCode } from './jsonrpc/errors.js';
export { McpError, McpErrorCode, isMcpError } from './util/errors.js';
export { createInMemoryPair } from './transport/memory.js';
export { createStreamableHttpHandler, type StreamableHttpServerOptions } from './transport/http/server/server.js';
export { supportedRevisions, latestRevision, type ProtocolRevision } from './protocol/revisions.js';
