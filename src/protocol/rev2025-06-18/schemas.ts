/**
 * 2025-06-18 deltas from the neutral model: `structuredContent` must be an object,
 * `outputSchema` has a root `type: "object"`, elicitation is form-only (no `mode`), and
 * sampling content is still a single text/image/audio block (as in 2025-03-26).
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18
 * @module
 */

import { array, extend, literal, object, optional, string } from '../../util/schema.js';
import { JsonObject } from '../model/common.js';
import { ElicitFormParams } from '../model/elicitation.js';
import { Tool } from '../model/tool.js';
import { CallToolResult, ListToolsResult } from '../model/tools.js';

/** An output schema whose root is `type: "object"`. */
export const ObjectOutputSchema = object({ type: literal('object'), $schema: optional(string()) });

/** A tool whose `outputSchema` is an object schema. */
export const ToolV = extend(Tool, { outputSchema: optional(ObjectOutputSchema) });

/** `tools/list` result. */
export const ListToolsResultV = extend(ListToolsResult, { tools: array(ToolV) });

/** `tools/call` result: `structuredContent` is an object. */
export const CallToolResultV = extend(CallToolResult, { structuredContent: optional(JsonObject) });

/** `elicitation/create` params: form mode only. */
export const ElicitParamsV = ElicitFormParams;
