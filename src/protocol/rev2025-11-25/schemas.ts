/**
 * 2025-11-25 deltas from the neutral model: URL-mode elicitation requires `elicitationId`,
 * task-augmented requests may answer with a `CreateTaskResult`, and the 2025-06-18 object-only
 * rules for `structuredContent`/`outputSchema` still apply.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25
 * @module
 */

import { extend, string } from '../../util/schema.js';
import { select } from '../model/common.js';
import { ElicitFormParams, ElicitResult, ElicitUrlParams } from '../model/elicitation.js';
import { CreateMessageResult } from '../model/sampling.js';
import { CreateTaskResult } from '../model/tasks.js';
import { CallToolResultV } from '../rev2025-06-18/schemas.js';

/** URL-mode params with the required `elicitationId`. */
export const ElicitUrlParamsV = extend(ElicitUrlParams, { elicitationId: string() });

/** `elicitation/create` params: form (default) or url. */
export const ElicitParamsV = select([ElicitFormParams, ElicitUrlParamsV], (v) => (v['mode'] === 'url' ? 1 : 0));

const isTask = (v: Readonly<Record<string, unknown>>): number => ('task' in v && !('content' in v) && !('action' in v) ? 1 : 0);

/** `tools/call` result, or a `CreateTaskResult` for a task-augmented call. */
export const CallToolOrTaskResult = select([CallToolResultV, CreateTaskResult], isTask);

/** `sampling/createMessage` result, or a `CreateTaskResult`. */
export const CreateMessageOrTaskResult = select([CreateMessageResult, CreateTaskResult], isTask);

/** `elicitation/create` result, or a `CreateTaskResult`. */
export const ElicitOrTaskResult = select([ElicitResult, CreateTaskResult], isTask);
