/**
 * Sampling: the server asks the client's model for a completion (deprecated in 2026-07-28,
 * where it is delivered through MRTR).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/client/sampling
 * @module
 */

import { array, enumeration, integer, number, object, optional, string, union, type Infer } from '../../util/schema.js';
import { JsonObject, Meta, Role } from './common.js';
import { SamplingContent } from './content.js';
import { Tool } from './tool.js';
import { TaskMetadata } from './taskMetadata.js';

/** A model-name hint, matched as a substring by the client. */
export const ModelHint = object({ name: optional(string()) });
/** @see {@link ModelHint} */
export type ModelHint = Infer<typeof ModelHint>;

const priority = optional(number({ minimum: 0, maximum: 1 }));

/** The server's model preferences; priorities are in [0, 1]. */
export const ModelPreferences = object({
  hints: optional(array(ModelHint)),
  costPriority: priority,
  speedPriority: priority,
  intelligencePriority: priority,
});
/** @see {@link ModelPreferences} */
export type ModelPreferences = Infer<typeof ModelPreferences>;

/** One message of a sampling conversation; content is one block or (2025-11-25+) a list. */
export const SamplingMessage = object({
  role: Role,
  content: union([SamplingContent, array(SamplingContent)]),
  _meta: optional(Meta),
});
/** @see {@link SamplingMessage} */
export type SamplingMessage = Infer<typeof SamplingMessage>;

/** How the model may use the offered tools (2025-11-25+). */
export const ToolChoice = object({ mode: optional(enumeration(['auto', 'required', 'none'])) });
/** @see {@link ToolChoice} */
export type ToolChoice = Infer<typeof ToolChoice>;

/** `sampling/createMessage` params. */
export const CreateMessageParams = object({
  messages: array(SamplingMessage),
  modelPreferences: optional(ModelPreferences),
  systemPrompt: optional(string()),
  includeContext: optional(enumeration(['none', 'thisServer', 'allServers'])),
  temperature: optional(number()),
  maxTokens: integer({ minimum: 1 }),
  stopSequences: optional(array(string())),
  metadata: optional(JsonObject),
  tools: optional(array(Tool)),
  toolChoice: optional(ToolChoice),
  task: optional(TaskMetadata),
  _meta: optional(Meta),
});
/** @see {@link CreateMessageParams} */
export type CreateMessageParams = Infer<typeof CreateMessageParams>;

/** Why sampling stopped: `endTurn`, `stopSequence`, `maxTokens`, `toolUse`, or a custom string. */
export const StopReason = string();

/** `sampling/createMessage` result. */
export const CreateMessageResult = object({
  role: Role,
  content: union([SamplingContent, array(SamplingContent)]),
  model: string(),
  stopReason: optional(StopReason),
  _meta: optional(Meta),
});
/** @see {@link CreateMessageResult} */
export type CreateMessageResult = Infer<typeof CreateMessageResult>;
