/**
 * Params and results of `tools/list` and `tools/call`.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/tools
 * @module
 */

import { array, boolean, extend, optional, string, unknown, type Infer } from '../../util/schema.js';
import { CacheableResult, JsonObject, PaginatedParams, RequestParams, Result, paginatedShape } from './common.js';
import { ContentBlock } from './content.js';
import { inputResponseShape } from './mrtr.js';
import { TaskMetadata } from './taskMetadata.js';
import { Tool } from './tool.js';

/** `tools/list` params. */
export const ListToolsParams = PaginatedParams;
/** @see {@link ListToolsParams} */
export type ListToolsParams = Infer<typeof ListToolsParams>;

/** `tools/list` result (cacheable in 2026-07-28). */
export const ListToolsResult = extend(CacheableResult, { ...paginatedShape, tools: array(Tool) });
/** @see {@link ListToolsResult} */
export type ListToolsResult = Infer<typeof ListToolsResult>;

/**
 * `tools/call` params. `task` is 2025-11-25 core tasks; `inputResponses`/`requestState` are
 * 2026-07-28 MRTR retries.
 */
export const CallToolParams = extend(RequestParams, {
  name: string(),
  arguments: optional(JsonObject),
  task: optional(TaskMetadata),
  ...inputResponseShape,
});
/** @see {@link CallToolParams} */
export type CallToolParams = Infer<typeof CallToolParams>;

/**
 * `tools/call` result. `structuredContent` is any JSON value in 2026-07-28 and an object in
 * 2025-06-18/2025-11-25 (absent in 2025-03-26).
 */
export const CallToolResult = extend(Result, {
  content: array(ContentBlock),
  structuredContent: optional(unknown()),
  isError: optional(boolean()),
});
/** @see {@link CallToolResult} */
export type CallToolResult = Infer<typeof CallToolResult>;
