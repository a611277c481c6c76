/**
 * The MCP server: `McpServer`, its handler context, middleware and `requestState` sealing.
 *
 * @module
 */
export { McpServer, type McpServerOptions } from './mcpServer.js';
export { ManifestPublisher, type ServerSigningOptions, type SignedList } from './manifestPublisher.js';
export { ToolError, withJsonSchema } from './tools.js';
export { ServerSession } from './session.js';
export type { Principal } from '../transport/types.js';
export { InputRequiredError } from './context.js';
export type { ForwardedHandler, ForwardedHandle, ForwardedCompleter, ForwardToolOptions, ForwardCompleteOptions } from './forward.js';
export { MAX_INPUT_ROUNDS } from './input.js';
export type { Visibility, VisibilityContext, VisibleEntry } from './visibility.js';
export { runAsTask, taskIdOf } from './tasks/context.js';
export { MemoryTaskStore, type TaskStore, type TaskRecord } from './tasks/store.js';
export { type TasksOptions, type TaskMode } from './tasks/manager.js';
export { type ForwardedTasks, type ForwardedTaskMethod } from './tasks/forwarded.js';
export { type Middleware, type MiddlewareContext } from './middleware.js';
export type { ListenSource, ListenGrant, ListenRequest } from './subscriptions.js';
export { RequestStateSealer, MemoryNonceStore, digestParams, canonicalJson, type NonceStore, type RequestStateOptions, type StateRejection } from './requestState.js';
export type {
  HandlerContext,
  InputOptions,
  TraceContext,
  ToolDefinition,
  ToolHandler,
  ToolReturn,
  ResourceDefinition,
  ResourceHandler,
  ResourceReturn,
  ResourceTemplateDefinition,
  TemplateHandler,
  PromptDefinition,
  PromptArgumentDefinition,
  PromptHandler,
  PromptReturn,
  Completer,
  CompletionContext,
  CacheHints,
  ServerInfo,
  StandardSchemaV1,
  InferArgs,
  InferStructured,
  FromJsonSchema,
  JsonSchemaObject,
  RegisteredHandle,
} from './types.js';
