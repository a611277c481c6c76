/**
 * The 2025-11-25 method registry: 2025-06-18 plus URL elicitation
 * (`notifications/elicitation/complete`), sampling with tools, and experimental core tasks
 * (`tasks/get|result|list|cancel`, `notifications/tasks/status`, in both directions).
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks
 * @module
 */

import { PaginatedParams } from '../model/common.js';
import { ElicitationCompleteParams } from '../model/elicitation.js';
import { GetPromptParams, GetPromptResult } from '../model/prompts.js';
import { CreateMessageParams } from '../model/sampling.js';
import { GetTaskResult, ListTasksResult, TaskIdParams, TaskPayloadResult, TaskStatusParams } from '../model/tasks.js';
import { CallToolParams } from '../model/tools.js';
import { CancelledParams } from '../model/utilities.js';
import { buildRegistry, notificationSpec as n, requestSpec as r, type MethodSpec } from '../methodSpec.js';
import { lifecycleSpecs, stableServerSpecs } from '../rev2025-03-26/registry.js';
import { ListToolsResultV } from '../rev2025-06-18/schemas.js';
import { CallToolOrTaskResult, CreateMessageOrTaskResult, ElicitOrTaskResult, ElicitParamsV } from './schemas.js';

/** Experimental core task methods (either side may be the receiver). */
export const taskSpecs: readonly MethodSpec[] = [
  r('tasks/get', 'both', TaskIdParams, GetTaskResult, { serverCapability: 'tasks' }),
  r('tasks/result', 'both', TaskIdParams, TaskPayloadResult, { serverCapability: 'tasks' }),
  r('tasks/list', 'both', PaginatedParams, ListTasksResult, { serverCapability: 'tasks.list', paginated: true }),
  r('tasks/cancel', 'both', TaskIdParams, GetTaskResult, { serverCapability: 'tasks.cancel' }),
  n('notifications/tasks/status', 'both', TaskStatusParams),
];

/** The 2025-11-25 registry. */
export const registry = buildRegistry(lifecycleSpecs, stableServerSpecs, taskSpecs, [
  n('notifications/cancelled', 'both', CancelledParams),
  r('tools/list', 'clientToServer', PaginatedParams, ListToolsResultV, { serverCapability: 'tools', paginated: true }),
  r('tools/call', 'clientToServer', CallToolParams, CallToolOrTaskResult, { serverCapability: 'tools' }),
  r('prompts/get', 'clientToServer', GetPromptParams, GetPromptResult, { serverCapability: 'prompts' }),
  r('sampling/createMessage', 'serverToClient', CreateMessageParams, CreateMessageOrTaskResult, { clientCapability: 'sampling' }),
  r('elicitation/create', 'serverToClient', ElicitParamsV, ElicitOrTaskResult, { clientCapability: 'elicitation' }),
  n('notifications/elicitation/complete', 'serverToClient', ElicitationCompleteParams),
]);
