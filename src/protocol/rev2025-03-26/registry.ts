/**
 * The 2025-03-26 method registry: every request and notification of that revision, both
 * directions, including the `initialize`/`initialized` lifecycle.
 *
 * @see https://modelcontextprotocol.io/specification/2025-03-26
 * @module
 */

import { EmptyResult, PaginatedParams, RequestParams } from '../model/common.js';
import { InitializeParams, InitializeResult } from '../model/lifecycle.js';
import { GetPromptParams, ListPromptsResult } from '../model/prompts.js';
import {
  ListResourceTemplatesResult,
  ListResourcesResult,
  ReadResourceParams,
  ReadResourceResult,
  ResourceRequestParams,
  ResourceUpdatedParams,
} from '../model/resources.js';
import { CallToolParams, ListToolsResult } from '../model/tools.js';
import {
  CompleteParams,
  CompleteResult,
  ListChangedParams,
  ListRootsResult,
  LoggingMessageParams,
  ProgressParams,
  SetLevelParams,
} from '../model/utilities.js';
import { buildRegistry, notificationSpec as n, requestSpec as r, type MethodSpec } from '../methodSpec.js';
import { CallToolResultV, CancelledParamsV, CreateMessageParamsV, CreateMessageResultV, GetPromptResultV } from './schemas.js';

/** Lifecycle and utilities shared by the stateful line (built from 2025-03-26 shapes). */
export const lifecycleSpecs: readonly MethodSpec[] = [
  r('initialize', 'clientToServer', InitializeParams, InitializeResult),
  n('notifications/initialized', 'clientToServer', ListChangedParams),
  r('ping', 'both', RequestParams, EmptyResult),
  n('notifications/progress', 'both', ProgressParams),
];

/** Server features of 2025-03-26 whose shapes later revisions keep. */
export const stableServerSpecs: readonly MethodSpec[] = [
  r('resources/list', 'clientToServer', PaginatedParams, ListResourcesResult, { serverCapability: 'resources', paginated: true }),
  r('resources/templates/list', 'clientToServer', PaginatedParams, ListResourceTemplatesResult, {
    serverCapability: 'resources',
    paginated: true,
  }),
  r('resources/read', 'clientToServer', ReadResourceParams, ReadResourceResult, { serverCapability: 'resources' }),
  r('resources/subscribe', 'clientToServer', ResourceRequestParams, EmptyResult, { serverCapability: 'resources.subscribe' }),
  r('resources/unsubscribe', 'clientToServer', ResourceRequestParams, EmptyResult, { serverCapability: 'resources.subscribe' }),
  n('notifications/resources/list_changed', 'serverToClient', ListChangedParams),
  n('notifications/resources/updated', 'serverToClient', ResourceUpdatedParams),
  r('prompts/list', 'clientToServer', PaginatedParams, ListPromptsResult, { serverCapability: 'prompts', paginated: true }),
  n('notifications/prompts/list_changed', 'serverToClient', ListChangedParams),
  n('notifications/tools/list_changed', 'serverToClient', ListChangedParams),
  r('logging/setLevel', 'clientToServer', SetLevelParams, EmptyResult, { serverCapability: 'logging' }),
  n('notifications/message', 'serverToClient', LoggingMessageParams),
  r('completion/complete', 'clientToServer', CompleteParams, CompleteResult, { serverCapability: 'completions' }),
  r('roots/list', 'serverToClient', RequestParams, ListRootsResult, { clientCapability: 'roots' }),
  n('notifications/roots/list_changed', 'clientToServer', ListChangedParams),
];

/** The 2025-03-26 registry. */
export const registry = buildRegistry(lifecycleSpecs, stableServerSpecs, [
  n('notifications/cancelled', 'both', CancelledParamsV),
  r('tools/list', 'clientToServer', PaginatedParams, ListToolsResult, { serverCapability: 'tools', paginated: true }),
  r('tools/call', 'clientToServer', CallToolParams, CallToolResultV, { serverCapability: 'tools' }),
  r('prompts/get', 'clientToServer', GetPromptParams, GetPromptResultV, { serverCapability: 'prompts' }),
  r('sampling/createMessage', 'serverToClient', CreateMessageParamsV, CreateMessageResultV, { clientCapability: 'sampling' }),
]);
