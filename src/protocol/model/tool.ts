/**
 * The `Tool` definition and its annotations.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/tools
 * @module
 */

import { array, boolean, enumeration, literal, object, optional, string, type Infer } from '../../util/schema.js';
import { Icon, JsonObject, Meta } from './common.js';

/**
 * Untrusted hints about a tool's behaviour (defaults: readOnly false, destructive true,
 * idempotent false, openWorld true).
 */
export const ToolAnnotations = object({
  title: optional(string()),
  readOnlyHint: optional(boolean()),
  destructiveHint: optional(boolean()),
  idempotentHint: optional(boolean()),
  openWorldHint: optional(boolean()),
});
/** @see {@link ToolAnnotations} */
export type ToolAnnotations = Infer<typeof ToolAnnotations>;

/** Task support of a tool (2025-11-25 core tasks): `forbidden` (default), `optional`, `required`. */
export const TaskSupport = enumeration(['forbidden', 'optional', 'required']);
/** @see {@link TaskSupport} */
export type TaskSupport = Infer<typeof TaskSupport>;

/** Execution properties of a tool (2025-11-25). */
export const ToolExecution = object({ taskSupport: optional(TaskSupport) });
/** @see {@link ToolExecution} */
export type ToolExecution = Infer<typeof ToolExecution>;

/** A tool's input schema: a JSON Schema object whose root `type` is `"object"`. */
export const InputSchema = object({ type: literal('object'), $schema: optional(string()) });
/** @see {@link InputSchema} */
export type InputSchema = Infer<typeof InputSchema>;

/**
 * A tool's output schema. Neutral (2026-07-28): any JSON Schema object; 2025-06-18 and
 * 2025-11-25 narrow it to a root `type: "object"`.
 */
export const OutputSchema = JsonObject;

/** A tool the server offers. */
export const Tool = object({
  name: string(),
  title: optional(string()),
  description: optional(string()),
  icons: optional(array(Icon)),
  inputSchema: InputSchema,
  outputSchema: optional(OutputSchema),
  annotations: optional(ToolAnnotations),
  execution: optional(ToolExecution),
  _meta: optional(Meta),
});
/** @see {@link Tool} */
export type Tool = Infer<typeof Tool>;
