/**
 * For agent builders: the host's tools in the Anthropic Messages and OpenAI tool formats, and
 * a model's tool call dispatched through the same interceptor chain as any MCP client's call.
 *
 * ```ts
 * const tools = agentTools(host, 'anthropic');            // pass tools.definitions to the model
 * const block = await tools.dispatch(toolUse, { principal }); // a tool_result block for the next turn
 * ```
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/tool-use
 * @see https://platform.openai.com/docs/guides/function-calling
 * @module
 */
import type { CallToolResult } from '../protocol/model/tools.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import type { Host, HostCallOptions } from './host.js';
import {
  callResultToAnthropicToolResult,
  callResultToOpenAIContent,
  toAnthropicTools,
  toOpenAITools,
  type AnthropicTool,
  type AnthropicToolResult,
  type OpenAITool,
} from './toolFormats.js';

/** An Anthropic `tool_use` content block, as the model returns it. */
export interface AnthropicToolUse {
  readonly type?: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

/** An OpenAI Chat Completions `tool_calls[]` entry. */
export interface OpenAIToolCall {
  readonly id: string;
  readonly type?: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/** An OpenAI `role: "tool"` message answering one tool call. */
export interface OpenAIToolMessage {
  readonly role: 'tool';
  readonly tool_call_id: string;
  readonly content: string;
}

/** The host's tools for one model API, taken now (take them again after the host's `tools` change). */
export interface AgentTools<Definition, Call, Answer> {
  /** The tool definitions to give the model. */
  readonly definitions: readonly Definition[];
  /** Runs the model's tool call through the host; failures come back as error results the model can read. */
  dispatch(call: Call, options?: HostCallOptions): Promise<Answer>;
}

/** The host's tools in the Anthropic Messages format. */
export function agentTools(host: Host, api: 'anthropic'): AgentTools<AnthropicTool, AnthropicToolUse, AnthropicToolResult>;
/** The host's tools in the OpenAI Chat Completions format. */
export function agentTools(host: Host, api: 'openai'): AgentTools<OpenAITool, OpenAIToolCall, OpenAIToolMessage>;
export function agentTools(host: Host, api: 'anthropic' | 'openai'): AgentTools<AnthropicTool, AnthropicToolUse, AnthropicToolResult> | AgentTools<OpenAITool, OpenAIToolCall, OpenAIToolMessage> {
  const exposed = host.tools.map((t) => t.tool);
  if (api === 'anthropic') {
    const { tools, names } = toAnthropicTools(exposed);
    const anthropic: AgentTools<AnthropicTool, AnthropicToolUse, AnthropicToolResult> = {
      definitions: tools,
      dispatch: async (use, options) => callResultToAnthropicToolResult(use.id, await run(host, names.toMcp(use.name), use.name, use.input, options)),
    };
    return anthropic;
  }
  const { tools, names } = toOpenAITools(exposed);
  const openai: AgentTools<OpenAITool, OpenAIToolCall, OpenAIToolMessage> = {
    definitions: tools,
    dispatch: async (call, options) => {
      let args: unknown;
      try {
        args = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
      } catch {
        return { role: 'tool', tool_call_id: call.id, content: callResultToOpenAIContent(errorResult(`The arguments of ${call.function.name} are not valid JSON`)) };
      }
      return { role: 'tool', tool_call_id: call.id, content: callResultToOpenAIContent(await run(host, names.toMcp(call.function.name), call.function.name, args, options)) };
    },
  };
  return openai;
}

async function run(host: Host, name: string | undefined, asCalled: string, input: unknown, options: HostCallOptions | undefined): Promise<CallToolResult> {
  if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) return errorResult(`The arguments of ${asCalled} must be an object`);
  try {
    // A name the host does not serve is the host's to record and refuse: a withheld (quarantined)
    // tool with the trust layer's reason and the review command, an unknown one as `Unknown tool`.
    return (await host.callTool(name ?? asCalled, input as Record<string, unknown> | undefined, options)) as CallToolResult;
  } catch (error) {
    if (error instanceof McpError && error.code !== McpErrorCode.InvalidArgument && error.code !== McpErrorCode.Denied && error.code !== McpErrorCode.ServerUnavailable && error.code !== McpErrorCode.RequestTimeout) throw error;
    return errorResult(error instanceof Error ? error.message : String(error));
  }
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
