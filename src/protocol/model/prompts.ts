/**
 * Prompts: `Prompt`, its arguments and messages, and the `prompts/*` params and results.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/prompts
 * @module
 */

import { array, boolean, extend, object, optional, record, string, type Infer } from '../../util/schema.js';
import { CacheableResult, Icon, Meta, PaginatedParams, RequestParams, Result, Role, paginatedShape } from './common.js';
import { ContentBlock } from './content.js';
import { inputResponseShape } from './mrtr.js';

/** An argument a prompt accepts. */
export const PromptArgument = object({
  name: string(),
  title: optional(string()),
  description: optional(string()),
  required: optional(boolean()),
});
/** @see {@link PromptArgument} */
export type PromptArgument = Infer<typeof PromptArgument>;

/** A prompt template the server offers. */
export const Prompt = object({
  name: string(),
  title: optional(string()),
  description: optional(string()),
  arguments: optional(array(PromptArgument)),
  icons: optional(array(Icon)),
  _meta: optional(Meta),
});
/** @see {@link Prompt} */
export type Prompt = Infer<typeof Prompt>;

/** One message of a rendered prompt: a role and a single content block. */
export const PromptMessage = object({ role: Role, content: ContentBlock });
/** @see {@link PromptMessage} */
export type PromptMessage = Infer<typeof PromptMessage>;

/** `prompts/list` params. */
export const ListPromptsParams = PaginatedParams;
/** @see {@link ListPromptsParams} */
export type ListPromptsParams = Infer<typeof ListPromptsParams>;

/** `prompts/list` result (cacheable in 2026-07-28). */
export const ListPromptsResult = extend(CacheableResult, { ...paginatedShape, prompts: array(Prompt) });
/** @see {@link ListPromptsResult} */
export type ListPromptsResult = Infer<typeof ListPromptsResult>;

/** `prompts/get` params (MRTR retry members in 2026-07-28). */
export const GetPromptParams = extend(RequestParams, {
  name: string(),
  arguments: optional(record(string())),
  ...inputResponseShape,
});
/** @see {@link GetPromptParams} */
export type GetPromptParams = Infer<typeof GetPromptParams>;

/** `prompts/get` result. */
export const GetPromptResult = extend(Result, { description: optional(string()), messages: array(PromptMessage) });
/** @see {@link GetPromptResult} */
export type GetPromptResult = Infer<typeof GetPromptResult>;
