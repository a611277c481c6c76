/**
 * The host layer's building blocks (runtime-neutral: no `node:*`): the `switchboard.json`
 * config, namespacing of names and URIs across servers, launch consent for local servers,
 * offline tool search, and tool formats for model APIs. Persistence lives in
 * `switchboard/store`; in-memory stores are here for tests.
 *
 * @module
 */
export { parseConfig, isConfigError, type ParseConfigOptions, SERVER_ID_PATTERN, SEPARATOR_PATTERN, LAUNCH_DIGEST_PATTERN, CONFIG_DEFAULTS } from './config.js';
export {
  ConfigError,
  type HostConfig,
  type ServerConfig,
  type ServerLaunch,
  type StdioLaunch,
  type RemoteLaunch,
  type ServerOptions,
  type ServerOAuthOptions,
  type ToolFilter,
  type GatewayConfig,
  type GatewayAuth,
  type NamespacingMode,
  type Exposure,
  type ServerEra,
} from './configTypes.js';
export { compileGlob, compileToolFilter } from './toolFilter.js';
export { EXPOSED_NAME_MAX_LENGTH, EXPOSED_NAME_PATTERN, isExposableName } from './nameRules.js';
export {
  Namespacer,
  NamespaceCollisionError,
  checkAssignments,
  type NamespacerOptions,
  type NameAssignmentStore,
  type NameAssignments,
  type NameKind,
  type NameOwner,
} from './namespacing.js';
export { UriNamespacer, rewriteUri, restoreUri, type UriOwner } from './uriNamespacing.js';
export {
  launchSpecOf,
  launchDigest,
  describeLaunch,
  checkLaunch,
  LaunchNotApprovedError,
  type LaunchSpec,
  type LaunchApprovalStore,
  type CheckLaunchOptions,
} from './launchConsent.js';
export { MemoryNameAssignmentStore, MemoryLaunchApprovalStore } from './memoryStores.js';
export { ToolSearchIndex, tokenize, parameterNames, TOOL_SEARCH_PARAMETERS, type SearchableTool, type ToolSearchResult, type ToolSearchOptions } from './toolSearch.js';
export {
  toAnthropicTools,
  toOpenAITools,
  providerNames,
  callResultToAnthropicContent,
  callResultToAnthropicToolResult,
  callResultToOpenAIContent,
  PROVIDER_NAME_PATTERN,
  type AnthropicTool,
  type AnthropicToolResult,
  type AnthropicToolResultContent,
  type OpenAITool,
  type ToolNameMap,
} from './toolFormats.js';
