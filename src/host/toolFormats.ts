/**
 * MCP tools and tool results in the shapes of the large model APIs, for hosts that call a
 * model directly.
 *
 * - Anthropic Messages API (`anthropic-version: 2023-06-01`): tool definitions
 *   `{ name, description, input_schema }`; results as `tool_result` content blocks (`text`,
 *   and `image` with a base64 `source` for JPEG, PNG, GIF and WebP).
 * - OpenAI Chat Completions API (`tools` of `type: "function"`): `{ type: 'function', function:
 *   { name, description, parameters } }`; a result is the string `content` of a `role: "tool"`
 *   message.
 *
 * Both APIs accept function names of `[A-Za-z0-9_-]{1,64}` only, while MCP names may hold `.`
 * and `/`. Such names are mapped (invalid characters → `_`, plus a hash suffix when the
 * cleaned name would clash or is too long) and the {@link ToolNameMap} returned next to the
 * tools maps the model's name back to the MCP name. Valid names are kept unchanged.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/tool-use
 * @see https://platform.openai.com/docs/guides/function-calling
 * @module
 */
import type { ContentBlock } from '../protocol/model/content.js';
import type { Tool } from '../protocol/model/tool.js';
import type { CallToolResult } from '../protocol/model/tools.js';
import { sha256Hex } from '../util/sha256.js';

/** A tool definition for the Anthropic Messages API. */
export interface AnthropicTool {
  readonly name: string;
  readonly description?: string;
  readonly input_schema: Readonly<Record<string, unknown>>;
}

/** A function tool for the OpenAI Chat Completions API. */
export interface OpenAITool {
  readonly type: 'function';
  readonly function: { readonly name: string; readonly description?: string; readonly parameters: Readonly<Record<string, unknown>> };
}

/** A content block of an Anthropic `tool_result`. */
export type AnthropicToolResultContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly source: { readonly type: 'base64'; readonly media_type: string; readonly data: string } };

/** An Anthropic `tool_result` block (goes in a `user` message). */
export interface AnthropicToolResult {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content: readonly AnthropicToolResultContent[];
  readonly is_error?: true;
}

/** Maps between MCP tool names and the names given to a model API. */
export interface ToolNameMap {
  /** The model-API name of an MCP tool name. */
  toProvider(mcpName: string): string | undefined;
  /** The MCP tool name of a name the model called. */
  toMcp(providerName: string): string | undefined;
}

/** Function names both APIs accept. */
export const PROVIDER_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const ANTHROPIC_IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** Tool definitions for the Anthropic Messages API, and the name map. */
export function toAnthropicTools(tools: readonly Tool[]): { tools: AnthropicTool[]; names: ToolNameMap } {
  const names = providerNames(tools);
  return {
    tools: tools.map((tool) => withDescription({ name: names.toProvider(tool.name) as string, input_schema: parametersOf(tool) }, tool)),
    names,
  };
}

/** Function tools for the OpenAI Chat Completions API, and the name map. */
export function toOpenAITools(tools: readonly Tool[]): { tools: OpenAITool[]; names: ToolNameMap } {
  const names = providerNames(tools);
  return {
    tools: tools.map((tool) => ({ type: 'function', function: withDescription({ name: names.toProvider(tool.name) as string, parameters: parametersOf(tool) }, tool) })),
    names,
  };
}

/**
 * The name map for `tools`: valid names unchanged; others cleaned, and hash-suffixed when the
 * cleaned name is taken or too long. Deterministic for the same list.
 */
export function providerNames(tools: readonly Pick<Tool, 'name'>[]): ToolNameMap {
  const toProvider = new Map<string, string>();
  const toMcp = new Map<string, string>();
  for (const { name } of tools) {
    if (PROVIDER_NAME_PATTERN.test(name)) {
      toProvider.set(name, name);
      toMcp.set(name, name);
    }
  }
  for (const { name } of tools) {
    if (toProvider.has(name)) continue;
    const cleaned = name.replace(/[^A-Za-z0-9_-]/g, '_');
    let mapped = cleaned.length >= 1 && cleaned.length <= 64 && !toMcp.has(cleaned) ? cleaned : `${cleaned.slice(0, 55)}_${sha256Hex(name).slice(0, 8)}`;
    if (toMcp.has(mapped)) mapped = `${cleaned.slice(0, 47)}_${sha256Hex(name).slice(0, 16)}`;
    toProvider.set(name, mapped);
    toMcp.set(mapped, name);
  }
  return { toProvider: (mcpName) => toProvider.get(mcpName), toMcp: (providerName) => toMcp.get(providerName) };
}

/** The content of an Anthropic `tool_result`: text and supported images as themselves, anything else as JSON text. */
export function callResultToAnthropicContent(result: CallToolResult): AnthropicToolResultContent[] {
  const out: AnthropicToolResultContent[] = [];
  for (const block of result.content) {
    if (block.type === 'text') out.push({ type: 'text', text: block.text });
    else if (block.type === 'image' && ANTHROPIC_IMAGE_TYPES.has(block.mimeType)) out.push({ type: 'image', source: { type: 'base64', media_type: block.mimeType, data: block.data } });
    else out.push({ type: 'text', text: JSON.stringify(block) });
  }
  const structured = structuredOnly(result);
  if (structured !== undefined) out.push({ type: 'text', text: structured });
  return out;
}

/** A whole Anthropic `tool_result` block for the call `toolUseId`, with `is_error` from the result. */
export function callResultToAnthropicToolResult(toolUseId: string, result: CallToolResult): AnthropicToolResult {
  const block = { type: 'tool_result' as const, tool_use_id: toolUseId, content: callResultToAnthropicContent(result) };
  return result.isError === true ? { ...block, is_error: true } : block;
}

/**
 * The `content` string of an OpenAI `role: "tool"` message: text blocks as they are, other
 * blocks as JSON, joined by newlines. OpenAI has no error flag, so a result with `isError`
 * starts with `[tool error] `.
 */
export function callResultToOpenAIContent(result: CallToolResult): string {
  const parts = result.content.map((block: ContentBlock) => (block.type === 'text' ? block.text : JSON.stringify(block)));
  const structured = structuredOnly(result);
  if (structured !== undefined) parts.push(structured);
  const text = parts.join('\n');
  return result.isError === true ? `[tool error] ${text}` : text;
}

/** `structuredContent` as JSON when the result carries no content blocks (else the blocks already say it). */
function structuredOnly(result: CallToolResult): string | undefined {
  return result.content.length === 0 && result.structuredContent !== undefined ? JSON.stringify(result.structuredContent) : undefined;
}

/** The input schema as a parameters object: `$schema` dropped, `properties` present. */
function parametersOf(tool: Tool): Record<string, unknown> {
  const schema: Record<string, unknown> = { ...(tool.inputSchema as Record<string, unknown>) };
  delete schema['$schema'];
  if (schema['properties'] === undefined) schema['properties'] = {};
  return schema;
}

function withDescription<T extends object>(base: T, tool: Tool): T & { description?: string } {
  const description = tool.description ?? tool.title;
  return description === undefined ? base : { ...base, description };
}
