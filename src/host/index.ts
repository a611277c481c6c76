/**
 * The host layer's building blocks (runtime-neutral: no `node:*`): the `switchboard.json`
 * config, namespacing of names and URIs across servers, launch consent for local servers,
 * offline tool search, tool formats for model APIs, and the runtime: `Host` (one client per
 * server, the namespaced registry, routing through the interceptor chain), the era bridge and
 * the `Gateway` (the host served as one MCP server). The default transport factory (stdio
 * needs Node) is in `switchboard/adapters/node`. Persistence lives in
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
  type ScanMode,
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
export { Host, type HostOptions, type HostChange, type RequestScope, type HostCallOptions, type DownstreamRoute, type ExposedTool, type ExposedPrompt, type ExposedResource, type ExposedTemplate, type WithheldItem } from './host.js';
export { Downstream, EMPTY_CATALOG, type ServerState, type ServerHealth, type Catalog, type TransportFactory, type BackoffOptions, type DownstreamOptions, type RunOptions } from './downstream.js';
export type { DownstreamSpec } from './spec.js';
export { serverIdentity, isLoopbackHttp } from './serverIdentity.js';
export { Limiter, type LimiterOptions } from './limiter.js';
export {
  InterceptorChain,
  DeniedError,
  interceptContext,
  INTERCEPTOR_PHASES,
  type Interceptor,
  type InterceptorPhase,
  type InterceptContext,
  type InterceptedMethod,
  type Decision,
  type ServerIdentity,
  type Next,
} from './interceptors.js';
export {
  auditInterceptor,
  AUDIT_INTERCEPTOR_ID,
  type AuditEntry,
  type AuditRecord,
  type AuditLog,
  type AuditReader,
  type AuditOutcome,
  type AuditVerification,
  type AuditInterceptorOptions,
} from './audit.js';
export {
  guardInterceptor,
  GUARD_IDS,
  MemoryConcurrencyStore,
  MemoryRateLimitStore,
  type ConcurrencyGrant,
  type ConcurrencyStore,
  type GuardOptions,
  type RateLimitRule,
  type RateLimitScope,
  type RateLimitStore,
  type RateLimitVerdict,
} from './guards.js';
export { Gateway, GATEWAY_CLIENT_CAPABILITIES, SEARCH_TOOL, CALL_TOOL, type GatewayOptions, type ExposureFilter } from './gateway.js';
export { PendingCall, PendingCalls, type PendingCallsOptions, type Attempt, type Launch, type LaunchRound, type Step, type Driver } from './bridge.js';
export { agentTools, type AgentTools, type AnthropicToolUse, type OpenAIToolCall, type OpenAIToolMessage } from './agentTools.js';
export { scanTools, scanServer, scanServers, highest } from './scanner/scan.js';
export { ScanGuard, SCANNER_INTERCEPTOR_ID, blockReason, type ScanGuardOptions } from './scanner/guard.js';
export { toSarif, meetsSeverity, RULES, type RuleInfo } from './scanner/sarif.js';
export {
  SEVERITIES,
  type Severity,
  type Confidence,
  type Verdict,
  type ItemKind,
  type RuleFamily,
  type Finding,
  type FindingLocation,
  type ItemReport,
  type PeerTool,
  type ServerSnapshot,
  type ScanOptions,
  type ScanReport,
} from './scanner/types.js';
export { type CatalogVetter, type CatalogLists, type VetInput, type VetResult, type QuarantinedItem, type QuarantinedKind } from './catalogVetting.js';
export { PinGuard, PINS_INTERCEPTOR, type PinGuardOptions } from './pins/pinGuard.js';
export { MemoryPinStore, PinStoreCorruptError, checkServerPins, type PinStore, type ServerPins, type PinnedItem, type PendingItem, type TrustLevel } from './pins/pinStore.js';
export { diffDefinitions, formatChanges, type PinChange, type ChangeClass } from './pins/pinDiff.js';
export { groupDigests, itemKey, pinnedName, FIELD_GROUPS, type PinKind, type GroupDigests } from './pins/pinDigests.js';
export { serverIdentity as pinIdentity, displayIdentity } from './pins/serverIdentity.js';
export { approvePending, rejectPending, selectRecords, formatPinList, formatPinDiff, INSTRUCTIONS_ITEM } from './pins/pinReview.js';
export { checkSignature, type SignaturePolicy, type TrustedKey, type SignatureOutcome } from './pins/signatureCheck.js';
