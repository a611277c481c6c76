/**
 * The 2025-06-18 method registry: 2025-03-26 plus `elicitation/create`, `resource_link`
 * content, structured tool output and completion context.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18
 * @module
 */

import { PaginatedParams } from '../model/common.js';
import { ElicitResult } from '../model/elicitation.js';
import { GetPromptParams, GetPromptResult } from '../model/prompts.js';
import { CallToolParams } from '../model/tools.js';
import { buildRegistry, notificationSpec as n, requestSpec as r } from '../methodSpec.js';
import { lifecycleSpecs, stableServerSpecs } from '../rev2025-03-26/registry.js';
import { CancelledParamsV, CreateMessageParamsV, CreateMessageResultV } from '../rev2025-03-26/schemas.js';
import { CallToolResultV, ElicitParamsV, ListToolsResultV } from './schemas.js';

/** The 2025-06-18 registry. */
export const registry = buildRegistry(lifecycleSpecs, stableServerSpecs, [
  n('notifications/cancelled', 'both', CancelledParamsV),
  r('tools/list', 'clientToServer', PaginatedParams, ListToolsResultV, { serverCapability: 'tools', paginated: true }),
  r('tools/call', 'clientToServer', CallToolParams, CallToolResultV, { serverCapability: 'tools' }),
  r('prompts/get', 'clientToServer', GetPromptParams, GetPromptResult, { serverCapability: 'prompts' }),
  r('sampling/createMessage', 'serverToClient', CreateMessageParamsV, CreateMessageResultV, { clientCapability: 'sampling' }),
  r('elicitation/create', 'serverToClient', ElicitParamsV, ElicitResult, { clientCapability: 'elicitation' }),
]);
