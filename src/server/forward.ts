/**
 * Definitions from elsewhere (a gateway serving other servers' tools, prompts, resources and
 * templates through one `McpServer`): the wire form is kept byte for byte (every `_meta`,
 * annotation, icon, `execution`, any schema dialect) and requests go to a
 * {@link ForwardedHandler} with the params as received. Argument validation is optional;
 * a schema the validators cannot compile never makes a registration throw.
 *
 * @module
 */
import { compileJsonSchema } from '../protocol/jsonSchema.js';
import type { Prompt } from '../protocol/model/prompts.js';
import type { Resource, ResourceTemplate } from '../protocol/model/resource.js';
import type { Tool } from '../protocol/model/tool.js';
import type { CallToolResult } from '../protocol/model/tools.js';
import { extractMcpHeaders } from '../protocol/xMcpHeader.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { PromptEntry } from './prompts.js';
import type { RegisteredResource, RegisteredTemplate } from './resources.js';
import { makeTemplate } from './resources.js';
import type { CompiledTool, Validator } from './tools.js';
import type { ForwardCompleteOptions, ForwardedHandler, ForwardToolOptions } from './types.js';

export type { ForwardCompleteOptions, ForwardedCompleter, ForwardedHandle, ForwardedHandler, ForwardToolOptions } from './types.js';

type Wire = Readonly<Record<string, unknown>>;

function requireString(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') throw new McpError(McpErrorCode.InvalidArgument, `a forwarded ${what} must be a non-empty string`);
  return value;
}

/** A validator that never fails registration: an uncompilable schema means no validation, with a warning. */
function lenientValidator(schema: unknown, name: string, logger: Logger): Validator | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const warn = (error: unknown): void => logger.warn('a forwarded tool schema cannot be compiled; its arguments are not validated', { tool: name, error: String(error) });
  try {
    const compiled = compileJsonSchema(schema as Wire);
    let usable = true;
    compiled.ready.catch((error: unknown) => {
      usable = false;
      warn(error);
    });
    return async (value) => {
      try {
        await compiled.ready;
      } catch {
        return { ok: true, value };
      }
      return usable ? compiled.validate(value) : { ok: true, value };
    };
  } catch (error) {
    warn(error);
    return undefined;
  }
}

const passThrough: Validator = (value) => ({ ok: true, value });

/** The registry entry of a forwarded tool. */
export function forwardedTool(tool: Tool, handler: ForwardedHandler<CallToolResult>, options: ForwardToolOptions, logger: Logger): CompiledTool {
  const name = requireString(tool.name, 'tool name');
  const wire = Object.freeze(structuredClone(tool)) as Tool;
  const analysis = extractMcpHeaders(wire.inputSchema as Wire);
  if (analysis.problems.length > 0) logger.warn('a forwarded tool has unusable x-mcp-header annotations; none are checked', { tool: name, problems: analysis.problems });
  const validate = options.validateArguments === true ? lenientValidator(wire.inputSchema, name, logger) : undefined;
  return {
    key: name,
    name,
    wire,
    handler: (() => undefined) as never,
    validateInput: validate ?? passThrough,
    validateOutput: undefined,
    headers: analysis.problems.length > 0 ? [] : analysis.headers.map((h) => ({ name: h.name, path: h.path, type: h.type })),
    disabled: false,
    forward: handler as ForwardedHandler<Record<string, unknown>>,
  };
}

/** The registry entry of a forwarded prompt. */
export function forwardedPrompt(prompt: Prompt, handler: ForwardedHandler<Record<string, unknown>>, options: ForwardCompleteOptions): PromptEntry {
  const name = requireString(prompt.name, 'prompt name');
  return {
    key: name,
    wire: Object.freeze(structuredClone(prompt)),
    definition: {},
    handler: (() => ({ messages: [] })) as never,
    disabled: false,
    forward: handler,
    ...(options.complete !== undefined ? { forwardComplete: options.complete } : {}),
  };
}

/** The registry entry of a forwarded resource. */
export function forwardedResource(resource: Resource, handler: ForwardedHandler<Record<string, unknown>>): RegisteredResource {
  const uri = requireString(resource.uri, 'resource uri');
  return { key: uri, uri, wire: Object.freeze(structuredClone(resource)), handler: (() => []) as never, cache: undefined, disabled: false, forward: handler };
}

/** The registry entry of a forwarded template. Throws `ERR_MCP_INVALID_ARGUMENT` for an invalid RFC 6570 template. */
export function forwardedTemplate(template: ResourceTemplate, handler: ForwardedHandler<Record<string, unknown>>, options: ForwardCompleteOptions): RegisteredTemplate {
  const uriTemplate = requireString(template.uriTemplate, 'uriTemplate');
  let base: RegisteredTemplate;
  try {
    base = makeTemplate(uriTemplate, { name: String(template.name) }, () => []);
  } catch (error) {
    throw new McpError(McpErrorCode.InvalidArgument, `invalid resource template ${JSON.stringify(uriTemplate)}`, { cause: error });
  }
  return {
    ...base,
    wire: Object.freeze(structuredClone(template)),
    forward: handler,
    ...(options.complete !== undefined ? { forwardComplete: options.complete } : {}),
  };
}
