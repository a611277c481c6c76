/**
 * The 2025-11-25 task-augmentation param, kept apart so request shapes can use it without
 * depending on the task methods.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks
 * @module
 */

import { integer, object, optional, string, type Infer } from '../../util/schema.js';

/** `params.task`: asks the receiver to run the request as a task (2025-11-25). */
export const TaskMetadata = object({ ttl: optional(integer({ minimum: 0 })) });
/** @see {@link TaskMetadata} */
export type TaskMetadata = Infer<typeof TaskMetadata>;

/** `_meta["io.modelcontextprotocol/related-task"]` value (2025-11-25). */
export const RelatedTaskMetadata = object({ taskId: string() });
/** @see {@link RelatedTaskMetadata} */
export type RelatedTaskMetadata = Infer<typeof RelatedTaskMetadata>;
