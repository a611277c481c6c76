/**
 * 2025-03-26 deltas from the neutral model: no `resource_link` content, no
 * `structuredContent`/`outputSchema`/`title`/elicitation, single-block sampling content with
 * text, image or audio, and a required `requestId` on cancellation.
 *
 * @see https://modelcontextprotocol.io/specification/2025-03-26
 * @module
 */

import { array, discriminated, extend, type Infer } from '../../util/schema.js';
import { AudioContent, EmbeddedResource, ImageContent, TextContent } from '../model/content.js';
import { RequestId } from '../model/common.js';
import { GetPromptResult, PromptMessage } from '../model/prompts.js';
import { CreateMessageParams, CreateMessageResult, SamplingMessage } from '../model/sampling.js';
import { CallToolResult } from '../model/tools.js';
import { CancelledParams } from '../model/utilities.js';

/** Content blocks of 2025-03-26 (no `resource_link`). */
export const ContentBlock = discriminated('type', {
  text: TextContent,
  image: ImageContent,
  audio: AudioContent,
  resource: EmbeddedResource,
});
/** @see {@link ContentBlock} */
export type ContentBlock = Infer<typeof ContentBlock>;

/** `tools/call` result (no `structuredContent`). */
export const CallToolResultV = extend(CallToolResult, { content: array(ContentBlock) });

/** A prompt message with a 2025-03-26 content block. */
export const PromptMessageV = extend(PromptMessage, { content: ContentBlock });

/** `prompts/get` result. */
export const GetPromptResultV = extend(GetPromptResult, { messages: array(PromptMessageV) });

/** Sampling content up to 2025-06-18: one text, image or audio block. */
export const SamplingContentV = discriminated('type', { text: TextContent, image: ImageContent, audio: AudioContent });

/** A sampling message with a single block. */
export const SamplingMessageV = extend(SamplingMessage, { content: SamplingContentV });

/** `sampling/createMessage` params. */
export const CreateMessageParamsV = extend(CreateMessageParams, { messages: array(SamplingMessageV) });

/** `sampling/createMessage` result. */
export const CreateMessageResultV = extend(CreateMessageResult, { content: SamplingContentV });

/** `notifications/cancelled` params (`requestId` required). */
export const CancelledParamsV = extend(CancelledParams, { requestId: RequestId });
