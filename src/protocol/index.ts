/**
 * The MCP protocol model: revisions, `_meta` keys, wire errors, revision-neutral shapes,
 * per-revision registries and the codec.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28
 * @module
 */

export {
  supportedRevisions,
  latestRevision,
  latestStatefulRevision,
  firstStatelessRevision,
  isSupportedRevision,
  isStateless,
  allowsBatch,
  compareRevisions,
  type ProtocolRevision,
} from './revisions.js';

export {
  META_PROTOCOL_VERSION,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_SERVER_INFO,
  META_SUBSCRIPTION_ID,
  META_RELATED_TASK,
  META_PROGRESS_TOKEN,
  META_TRACEPARENT,
  META_TRACESTATE,
  META_BAGGAGE,
  traceMetaKeys,
  TASKS_EXTENSION_ID,
  parseMetaKey,
  validateMetaKey,
  isValidMetaKey,
  isReservedMetaKey,
  validateExtensionId,
  isValidExtensionId,
  type MetaKeyParts,
} from './meta.js';

export {
  headerMismatch,
  missingRequiredClientCapability,
  unsupportedProtocolVersion,
  resourceNotFound,
  isResourceNotFound,
  invalidParamsFromIssues,
  httpStatusForError,
  type UnsupportedProtocolVersionOptions,
  type WireIssue,
} from './errors.js';

export {
  TOOL_NAME_MAX_LENGTH,
  checkToolName,
  isValidToolName,
} from './toolName.js';

export {
  X_MCP_HEADER,
  MCP_PARAM_HEADER_PREFIX,
  extractMcpHeaders,
  isHeaderSafe,
  encodeHeaderValue,
  decodeHeaderValue,
  headerValueMatches,
  valueAtPath,
  type McpParamHeader,
  type McpHeaderScan,
  type McpHeaderType,
} from './xMcpHeader.js';

export {
  buildRegistry,
  requestSpec,
  notificationSpec,
  type MethodSpec,
  type MethodDirection,
  type MethodRegistry,
} from './methodSpec.js';

export {
  InitializeRequest,
  InitializedNotification,
  PingRequest,
  DiscoverRequest,
  ListToolsRequest,
  CallToolRequest,
  ListPromptsRequest,
  GetPromptRequest,
  ListResourcesRequest,
  ListResourceTemplatesRequest,
  ReadResourceRequest,
  SubscribeRequest,
  UnsubscribeRequest,
  CompleteRequest,
  SetLevelRequest,
  ListenRequest,
  CreateMessageRequest,
  ListRootsRequest,
  ElicitRequest,
  GetTaskRequest,
  GetTaskPayloadRequest,
  ListTasksRequest,
  CancelTaskRequest,
  UpdateTaskRequest,
  CancelledNotification,
  ProgressNotification,
  LoggingMessageNotification,
  ToolListChangedNotification,
  PromptListChangedNotification,
  ResourceListChangedNotification,
  ResourceUpdatedNotification,
  RootsListChangedNotification,
  SubscriptionsAcknowledgedNotification,
  ElicitationCompleteNotification,
  TaskStatusNotification,
  TasksNotification,
  methodRegistry,
  lookupMethod,
  type RequestType,
  type NotificationType,
  type ParamsOf,
  type ResultOf,
} from './methods.js';

export {
  decodeRequestParams,
  decodeParamsFor,
  decodeResult,
  effectiveTtlMs,
  encodeResult,
  encodeRequestParams,
  type DecodeParamsOptions,
  type DecodeResultOptions,
  type RequestMetaStamp,
  type Decoded,
  type DecodedResult,
} from './codec.js';

export {
  ExtensionId,
  ExtensionsCapability,
  ClientTasksCapability,
  ServerTasksCapability,
  ClientCapabilities,
  ServerCapabilities,
  hasCapability,
  hasExtension,
} from './model/capabilities.js';

export {
  Meta,
  JsonObject,
  RequestId,
  ProgressToken,
  Cursor,
  Role,
  loggingLevels,
  LoggingLevel,
  Icon,
  Implementation,
  Annotations,
  CacheScope,
  TtlMs,
  coreResultTypes,
  RequestParams,
  NotificationParams,
  Result,
  EmptyResult,
  cacheShape,
  CacheableResult,
  PaginatedParams,
  paginatedShape,
  select,
  type ResultType,
  type ItemKind,
} from './model/common.js';

export {
  TextContent,
  ImageContent,
  AudioContent,
  ResourceLink,
  EmbeddedResource,
  ContentBlock,
  ToolUseContent,
  ToolResultContent,
  SamplingContent,
} from './model/content.js';

export {
  StringSchema,
  NumberSchema,
  BooleanSchema,
  UntitledSingleSelectEnumSchema,
  TitledSingleSelectEnumSchema,
  UntitledMultiSelectEnumSchema,
  TitledMultiSelectEnumSchema,
  PrimitiveSchemaDefinition,
  RequestedSchema,
  ElicitFormParams,
  ElicitUrlParams,
  ElicitParams,
  ElicitValue,
  ElicitResult,
  ElicitationCompleteParams,
} from './model/elicitation.js';

export {
  InitializeParams,
  InitializeResult,
  DiscoverParams,
  DiscoverResult,
} from './model/lifecycle.js';

export {
  inputRequestMethods,
  ElicitInputRequest,
  CreateMessageInputRequest,
  ListRootsInputRequest,
  InputRequest,
  InputRequests,
  InputResponse,
  InputResponses,
  inputResponseShape,
  InputRequiredResult,
} from './model/mrtr.js';

export {
  PromptArgument,
  Prompt,
  PromptMessage,
  ListPromptsParams,
  ListPromptsResult,
  GetPromptParams,
  GetPromptResult,
} from './model/prompts.js';

export {
  Resource,
  ResourceTemplate,
  TextResourceContents,
  BlobResourceContents,
  ResourceContents,
} from './model/resource.js';

export {
  ListResourcesParams,
  ListResourcesResult,
  ListResourceTemplatesParams,
  ListResourceTemplatesResult,
  ResourceRequestParams,
  ResourceUpdatedParams,
  ReadResourceResult,
  ReadResourceParams,
} from './model/resources.js';

export {
  ModelHint,
  ModelPreferences,
  SamplingMessage,
  ToolChoice,
  CreateMessageParams,
  StopReason,
  CreateMessageResult,
} from './model/sampling.js';

export {
  SubscriptionFilter,
  ListenParams,
  SubscriptionsAcknowledgedParams,
  SubscriptionMeta,
  ListenResult,
} from './model/subscriptions.js';

export {
  TaskMetadata,
  RelatedTaskMetadata,
} from './model/taskMetadata.js';

export {
  taskStatuses,
  TaskStatus,
  isTerminalTaskStatus,
  Task,
  CreateTaskResult,
  TaskIdParams,
  GetTaskResult,
  TaskPayloadResult,
  ListTasksParams,
  ListTasksResult,
  TaskStatusParams,
  ExtTask,
  ExtCreateTaskResult,
  DetailedTask,
  UpdateTaskParams,
  ExtTaskNotificationParams,
} from './model/tasks.js';

export {
  ToolAnnotations,
  TaskSupport,
  ToolExecution,
  InputSchema,
  OutputSchema,
  Tool,
} from './model/tool.js';

export {
  ListToolsParams,
  ListToolsResult,
  CallToolParams,
  CallToolResult,
} from './model/tools.js';

export {
  Root,
  ListRootsParams,
  ListRootsResult,
  PromptReference,
  ResourceTemplateReference,
  CompleteParams,
  CompleteResult,
  ProgressParams,
  CancelledParams,
  LoggingMessageParams,
  SetLevelParams,
  ListChangedParams,
} from './model/utilities.js';

export { inputRequestSpecs, tasksExtensionSpecs } from './rev2026-07-28/registry.js';
export { RequestMeta, type RequestMeta as RequestMeta2026 } from './rev2026-07-28/schemas.js';
export {
  MANIFEST_META_KEY,
  MANIFEST_WELL_KNOWN_PATH,
  MANIFEST_TYP,
  ROTATION_TYP,
  MANIFEST_ALGORITHMS,
  ManifestError,
  definitionDigest,
  manifestPayload,
  keyThumbprint,
  importSigningKey,
  generateSigningKey,
  signManifest,
  signRotation,
  readManifest,
  readRotation,
  manifestEnvelopeOf,
  type ManifestAlgorithm,
  type ManifestLists,
  type ManifestPayload,
  type ManifestEnvelope,
  type ManifestSigningKey,
  type VerifiedManifest,
  type VerifiedRotation,
} from './manifest.js';
