/**
 * The 2026-07-28 method registry (stateless): no `initialize`, `ping`, `logging/setLevel`,
 * `resources/subscribe`, or server-to-client requests; adds `server/discover` and
 * `subscriptions/listen`. The tasks extension's methods form a separate group flagged with
 * `extension: "io.modelcontextprotocol/tasks"`.
 *
 * Client input (`elicitation/create`, `sampling/createMessage`, `roots/list`) is not a method
 * here: it travels inside `InputRequiredResult` and is described by {@link inputRequestSpecs}.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic
 * @module
 */

import { DetailedTask } from '../model/tasks.js';
import { ElicitParams, ElicitResult } from '../model/elicitation.js';
import { CreateMessageParams, CreateMessageResult } from '../model/sampling.js';
import { ListRootsResult, ListChangedParams, LoggingMessageParams, ProgressParams } from '../model/utilities.js';
import { RequestParams } from '../model/common.js';
import { ResourceUpdatedParams } from '../model/resources.js';
import { SubscriptionsAcknowledgedParams } from '../model/subscriptions.js';
import { TASKS_EXTENSION_ID } from '../meta.js';
import { buildRegistry, notificationSpec as n, requestSpec as r, type MethodRegistry, type MethodSpec } from '../methodSpec.js';
import {
  CallToolParamsV,
  CallToolResultV,
  CancelledParamsV,
  CompleteParamsV,
  CompleteResultV,
  DiscoverResultV,
  EmptyResultV,
  GetPromptParamsV,
  GetPromptResultV,
  GetTaskResultV,
  ListPromptsResultV,
  ListResourceTemplatesResultV,
  ListResourcesResultV,
  ListToolsResultV,
  ListenParamsV,
  ListenResultV,
  PaginatedParamsV,
  ReadResourceParamsV,
  ReadResourceResultV,
  RequestParamsV,
  TaskIdParamsV,
  UpdateTaskParamsV,
} from './schemas.js';

/** Core methods of 2026-07-28. */
export const coreSpecs: readonly MethodSpec[] = [
  r('server/discover', 'clientToServer', RequestParamsV, DiscoverResultV, { cacheable: true }),
  r('tools/list', 'clientToServer', PaginatedParamsV, ListToolsResultV, { serverCapability: 'tools', cacheable: true, paginated: true }),
  r('tools/call', 'clientToServer', CallToolParamsV, CallToolResultV, {
    serverCapability: 'tools',
    mrtr: true,
    mcpNameParam: 'name',
    taskAugmentable: true,
  }),
  r('prompts/list', 'clientToServer', PaginatedParamsV, ListPromptsResultV, { serverCapability: 'prompts', cacheable: true, paginated: true }),
  r('prompts/get', 'clientToServer', GetPromptParamsV, GetPromptResultV, { serverCapability: 'prompts', mrtr: true, mcpNameParam: 'name' }),
  r('resources/list', 'clientToServer', PaginatedParamsV, ListResourcesResultV, {
    serverCapability: 'resources',
    cacheable: true,
    paginated: true,
  }),
  r('resources/templates/list', 'clientToServer', PaginatedParamsV, ListResourceTemplatesResultV, {
    serverCapability: 'resources',
    cacheable: true,
    paginated: true,
  }),
  r('resources/read', 'clientToServer', ReadResourceParamsV, ReadResourceResultV, {
    serverCapability: 'resources',
    mrtr: true,
    cacheable: true,
    mcpNameParam: 'uri',
  }),
  r('completion/complete', 'clientToServer', CompleteParamsV, CompleteResultV, { serverCapability: 'completions' }),
  r('subscriptions/listen', 'clientToServer', ListenParamsV, ListenResultV),
  n('notifications/cancelled', 'both', CancelledParamsV),
  n('notifications/progress', 'serverToClient', ProgressParams),
  n('notifications/message', 'serverToClient', LoggingMessageParams),
  n('notifications/subscriptions/acknowledged', 'serverToClient', SubscriptionsAcknowledgedParams),
  n('notifications/tools/list_changed', 'serverToClient', ListChangedParams),
  n('notifications/prompts/list_changed', 'serverToClient', ListChangedParams),
  n('notifications/resources/list_changed', 'serverToClient', ListChangedParams),
  n('notifications/resources/updated', 'serverToClient', ResourceUpdatedParams),
];

/**
 * Methods of the tasks extension (`io.modelcontextprotocol/tasks`).
 * @see https://modelcontextprotocol.io/extensions/tasks/overview
 */
export const tasksExtensionSpecs: readonly MethodSpec[] = [
  r('tasks/get', 'clientToServer', TaskIdParamsV, GetTaskResultV, { extension: TASKS_EXTENSION_ID, mcpNameParam: 'taskId' }),
  r('tasks/update', 'clientToServer', UpdateTaskParamsV, EmptyResultV, { extension: TASKS_EXTENSION_ID, mcpNameParam: 'taskId' }),
  r('tasks/cancel', 'clientToServer', TaskIdParamsV, EmptyResultV, { extension: TASKS_EXTENSION_ID, mcpNameParam: 'taskId' }),
  n('notifications/tasks', 'serverToClient', DetailedTask, { extension: TASKS_EXTENSION_ID }),
];

/** The 2026-07-28 registry: core plus extension groups. */
export const registry: MethodRegistry = buildRegistry(coreSpecs, tasksExtensionSpecs);

/**
 * The input requests an `InputRequiredResult` may embed, with the schema of their params and
 * of the answer the client puts in `inputResponses`. `capability` is the client capability
 * the server must see declared before asking.
 */
export const inputRequestSpecs: ReadonlyMap<string, MethodSpec & { readonly clientCapability: string }> = new Map(
  [
    r('elicitation/create', 'serverToClient', ElicitParams, ElicitResult, { clientCapability: 'elicitation' }),
    r('sampling/createMessage', 'serverToClient', CreateMessageParams, CreateMessageResult, { clientCapability: 'sampling' }),
    r('roots/list', 'serverToClient', RequestParams, ListRootsResult, { clientCapability: 'roots' }),
  ].map((s) => [s.method, s as MethodSpec & { readonly clientCapability: string }]),
);
