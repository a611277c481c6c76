/**
 * Content blocks carried by tool results, prompt messages and sampling messages.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/tools#tool-result
 * @module
 */

import { array, boolean, discriminated, extend, literal, object, optional, string, unknown, type Infer } from '../../util/schema.js';
import { Annotations, JsonObject, Meta } from './common.js';
import { Resource, ResourceContents } from './resource.js';

/** Plain text. */
export const TextContent = object({
  type: literal('text'),
  text: string(),
  annotations: optional(Annotations),
  _meta: optional(Meta),
});
/** @see {@link TextContent} */
export type TextContent = Infer<typeof TextContent>;

/** A base64-encoded image. */
export const ImageContent = object({
  type: literal('image'),
  data: string(),
  mimeType: string(),
  annotations: optional(Annotations),
  _meta: optional(Meta),
});
/** @see {@link ImageContent} */
export type ImageContent = Infer<typeof ImageContent>;

/** Base64-encoded audio (2025-03-26+). */
export const AudioContent = object({
  type: literal('audio'),
  data: string(),
  mimeType: string(),
  annotations: optional(Annotations),
  _meta: optional(Meta),
});
/** @see {@link AudioContent} */
export type AudioContent = Infer<typeof AudioContent>;

/** A link to a resource the client may read (2025-06-18+). */
export const ResourceLink = extend(Resource, { type: literal('resource_link') });
/** @see {@link ResourceLink} */
export type ResourceLink = Infer<typeof ResourceLink>;

/** Resource contents embedded inline. */
export const EmbeddedResource = object({
  type: literal('resource'),
  resource: ResourceContents,
  annotations: optional(Annotations),
  _meta: optional(Meta),
});
/** @see {@link EmbeddedResource} */
export type EmbeddedResource = Infer<typeof EmbeddedResource>;

/** Any content block of tool results and prompt messages (2025-06-18+ set). */
export const ContentBlock = discriminated('type', {
  text: TextContent,
  image: ImageContent,
  audio: AudioContent,
  resource_link: ResourceLink,
  resource: EmbeddedResource,
});
/** @see {@link ContentBlock} */
export type ContentBlock = Infer<typeof ContentBlock>;

/** A model's request to call a tool, inside sampling (2025-11-25+, deprecated with sampling). */
export const ToolUseContent = object({
  type: literal('tool_use'),
  id: string(),
  name: string(),
  input: JsonObject,
  _meta: optional(Meta),
});
/** @see {@link ToolUseContent} */
export type ToolUseContent = Infer<typeof ToolUseContent>;

/** The result of a tool use, inside sampling (2025-11-25+). */
export const ToolResultContent = object({
  type: literal('tool_result'),
  toolUseId: string(),
  content: array(ContentBlock),
  structuredContent: optional(unknown()),
  isError: optional(boolean()),
  _meta: optional(Meta),
});
/** @see {@link ToolResultContent} */
export type ToolResultContent = Infer<typeof ToolResultContent>;

/** Content of a sampling message. */
export const SamplingContent = discriminated('type', {
  text: TextContent,
  image: ImageContent,
  audio: AudioContent,
  tool_use: ToolUseContent,
  tool_result: ToolResultContent,
});
/** @see {@link SamplingContent} */
export type SamplingContent = Infer<typeof SamplingContent>;
