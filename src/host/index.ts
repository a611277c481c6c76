/**
 * The host layer's building blocks (runtime-neutral: no `node:*`): the `switchboard.json`
 * config, namespacing of names and URIs across servers, launch consent for local servers,
 * offline tool search, tool formats for model APIs, and the runtime: `Host` (one client per
 * server, the namespaced registry, routing through the interceptor chain), the era bridge and
 * the `Gateway` (the host served as one MCP server). The default transport factory (stdio
 * needs Node) and the downstream OAuth wiring are in `switchboard/adapters/node-host`.
 * Persistence lives in `switchboard/store`; in-memory stores are here for tests.
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
  type GatewayDpopConfig,
  type GatewayLimits,
  type NamespacingMode,
  type Exposure,
  type ServerEra,
  type ScanMode,
} from './configTypes.js';
export { compileGlob, compileToolFilter } from './toolFilter.js';
export { DEFAULT_GATEWAY_LIMITS } from './configLimits.js';
export { DEFAULT_NOTIFICATION_LIMITS, LogRelay, ProgressRelay, Relister, relayCall, relayLogs, type CallRelay, type NotificationLimits } from './notificationLimits.js';
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
export { launchFindings, WELL_KNOWN_PACKAGES, type LaunchFinding, type LaunchFindingKind } from './launchSupplyChain.js';
export { launchPackages, type LaunchPackage, type PackageEcosystem } from './launchPackages.js';
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
export { canonicalServerUrl, isLoopbackHttp } from './canonicalServerUrl.js';
export { Limiter, type LimiterOptions } from './limiter.js';
export {
  InterceptorChain,
  DeniedError,
  interceptContext,
  INTERCEPTOR_PHASES,
  type Interceptor,
  type InterceptorPhase,
  type InterceptContext,
  type InterceptContextInit,
  type InterceptedMethod,
  type NotificationMethod,
  type Decision,
  type RoutedServer,
  type Next,
} from './interceptors.js';
export {
  auditInterceptor,
  auditSubject,
  AUDIT_INTERCEPTOR_ID,
  type AuditEntry,
  type AuditRecord,
  type AuditLog,
  type AuditReader,
  type AuditOutcome,
  type AuditVerification,
  type AuditInterceptorOptions,
} from './audit.js';
export { AUDIT_EVENT_NAME, AUDIT_LOGGER_SCOPE, auditLogRecord, auditSummary, emitAuditRecords, emittingAuditLog, type EmittingAuditLogOptions } from './auditTelemetry.js';
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
export { sanitizeInterceptor, sanitizeResult, redactResult, injectionNotice, SANITIZE_INTERCEPTOR_ID, type SanitizeMode, type SanitizeOptions, type SanitizeReport } from './sanitize/sanitize.js';
export { PersistentTaintStore, type PersistentTaintStoreOptions, type TaintSnapshotRow, type TaintSnapshotStore } from './policy/taintPersistence.js';
export { ReloadablePolicy, policyDigest, describePolicyChange, policyChangeEntry, refusedReloadEntry, type PolicyBase, type PolicyChange } from './policy/policyReload.js';
export { sanitizeRequestInterceptor, SANITIZE_REQUEST_INTERCEPTOR_ID } from './sanitize/sanitizeRequests.js';
export { findSecrets, redactSecrets, type SecretMatch, type SecretScanOptions } from './secrets/findSecrets.js';
export { redactAuditEntry, redactingAuditLog, redactingLogger, redactValue } from './secrets/redact.js';
export { SECRET_RULES, type SecretRule } from './secrets/rules.js';
export { Gateway, GATEWAY_CLIENT_CAPABILITIES, SEARCH_TOOL, CALL_TOOL, type GatewayOptions } from './gateway.js';
export { GatewayTasks, withTasksExtension, type GatewayTasksOptions } from './gatewayTasks.js';
export { PendingCall, PendingCalls, type PendingCallsOptions, type Attempt, type Launch, type LaunchRound, type Step, type Driver } from './bridge.js';
export { agentTools, type AgentTools, type AnthropicToolUse, type OpenAIToolCall, type OpenAIToolMessage } from './agentTools.js';
export { scanTools, scanServer, scanServers, highest } from './scanner/scan.js';
export { Scanner, SCANNER_INTERCEPTOR_ID, blockReason, type ScannerOptions } from './scanner/scanner.js';
export { toSarif, meetsSeverity, RULES, type RuleInfo } from './scanner/sarif.js';
export {
  SEVERITIES,
  type Severity,
  type Confidence,
  type Verdict,
  type ScannedKind,
  type RuleFamily,
  type Finding,
  type FindingLocation,
  type ItemReport,
  type PeerTool,
  type ServerSnapshot,
  type ScanOptions,
  type ScanReport,
} from './scanner/types.js';
export { type CatalogVetter, type CatalogLists, type VetInput, type VetResult, type QuarantinedItem } from './catalogVetting.js';
export { PinTrust, PINS_INTERCEPTOR, type PinTrustOptions } from './pins/pinTrust.js';
export { MemoryPinStore, PinStoreCorruptError, checkServerPins, type PinStore, type ServerPins, type PinnedItem, type PendingItem, type TrustLevel } from './pins/pinStore.js';
export { diffDefinitions, formatChanges, type PinChange, type ChangeClass } from './pins/pinDiff.js';
export { groupDigests, itemKey, pinnedName, FIELD_GROUPS, type GroupDigests } from './pins/pinDigests.js';
export { serverIdentity, displayIdentity } from './pins/serverIdentity.js';
export { approvePending, decidePending, pinDecisionEntry, rejectPending, selectRecords, formatPinList, formatPinDiff, INSTRUCTIONS_ITEM, PIN_REVIEW_ID, type PinDecisionAudit } from './pins/pinReview.js';
export { checkSignature, type SignaturePolicy, type TrustedKey, type SignatureOutcome } from './pins/signatureCheck.js';
export { consentInterceptor, reasonsOf, CONSENT_INTERCEPTOR_ID, DEFAULT_CONSENT_TIMEOUT_MS, type ConsentInterceptorOptions } from './consent/consentInterceptor.js';
export { ONCE, type CallBinding, type ConsentAnswer, type ConsentEnvironment, type ConsentProvider, type ConsentRequest, type GrantScope, type Mediation } from './consent/consentTypes.js';
export { MemoryGrantStore, checkScope, findGrant, grantCovers, grantOf, globMatches, type CallUnderConsent, type ConsentGrant, type ConsentGrantStore } from './consent/consentGrants.js';
export { ConsentQueue, type ConsentQueueEvent, type ConsentQueueOptions } from './consent/consentQueue.js';
export { ConsentHttpApi, CONSENT_API_PREFIX, type ConsentHttpApiOptions } from './consent/consentHttpApi.js';
export { elicitationProvider } from './consent/elicitationProvider.js';
export { webhookProvider, type WebhookProviderOptions } from './consent/webhookProvider.js';
export { WebhookSigner, SIGNATURE_HEADER, TIMESTAMP_HEADER, DEFAULT_REPLAY_WINDOW_MS } from './consent/webhookSignature.js';
export { parseScope, parseWebhookAnswer } from './consent/consentAnswers.js';
export { describeConsentRequest, safeJson } from './consent/consentText.js';
export { policyInterceptor, POLICY_INTERCEPTOR_ID, VALUE_TAINT_RULE, SERVER_REQUEST_RULE, type PolicyOptions, type BuiltinMode } from './policy/policyEngine.js';
export { compileRules, evaluateRules, ruleEnvironment, RuleCompileError, RULE_OUTCOMES, type PolicyRule, type CompiledRule, type RuleOutcome, type RuleVariables, type RuleVerdict } from './policy/rules.js';
export { LABELS, isLabel, annotationLabels, LabelResolver, type Label, type LabelOrigin, type LabelInference, type ServerLabelConfig, type ResolvedLabels, type FindingsOf } from './policy/labels.js';
export { inferLabels, isCommandRunner, matchCatalog, UNVETTED_EVIDENCE, type InferredLabels, type ServerEvidence, type ToolEvidence, type CatalogMatch, type LaunchEvidence } from './policy/inferLabels.js';
export {
  MemoryTaintStore,
  taintKeys,
  joinTaint,
  CONVERSATION_META_KEY,
  DEFAULT_TAINT_WINDOWS,
  type TaintStore,
  type SyncTaintStore,
  type TaintState,
  type TaintSource,
  type SecretOrigin,
  type TaintKeys,
  type TaintWindows,
  type MemoryTaintStoreOptions,
} from './policy/taint.js';
export { TRIFECTA_RULE, trifectaReasons, trifectaReport, serverCapabilities, type TrifectaCombination } from './policy/trifecta.js';
export { SecretFingerprints, findTaintedValue, type DetectSecrets, type TaintMatch } from './policy/valueTaint.js';
export { formsOf } from './policy/taintForms.js';
export { readPolicy, readRules, readServerLabels, serverLabelsOf, type PolicyConfig } from './configPolicy.js';
export { openGateway, gatewayFrontDoor, type GatewayDeps, type GatewayCallConsent, type OpenedGateway } from './openGateway.js';
export { buildChain, type ChainParts } from './gatewayChain.js';
export { createFrontDoor, createAdminDoor, allowedHostsFor, type FrontDoorOptions, type FrontDoorAuth, type NamedToken, type MountedRoutes } from './frontDoor.js';
export { RECORDED_METHODS, type RecordedMethod, type RoutedMethod } from './interceptors.js';
