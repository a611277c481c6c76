/**
 * Tools: a definition is compiled once at registration (its JSON Schema validators, its
 * wire form for `tools/list`, its `x-mcp-header` parameters) and shared by every request.
 *
 * Errors follow the spec's split: an unknown tool or a malformed request is a JSON-RPC error;
 * arguments that fail the tool's input schema, and failures the handler reports with
 * {@link ToolError}, are `isError: true` results the model can act on.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/tools
 * @module
 */
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors.js';
import { compileJsonSchema, type CompiledJsonSchema } from '../protocol/jsonSchema.js';
import type { Tool } from '../protocol/model/tool.js';
import { checkToolName } from '../protocol/toolName.js';
import { extractMcpHeaders } from '../protocol/xMcpHeader.js';
import type { ToolHeaderParam } from '../transport/types.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { formatIssues, type Issue } from '../util/schema.js';
import type { ForwardedHandler } from './types.js';
import type { HandlerContext, JsonSchemaObject, StandardSchemaV1, ToolDefinition, ToolHandler, ToolReturn } from './types.js';

/**
 * Thrown by a tool handler to report an execution error the model should see: it becomes a
 * result with `isError: true` and the message as text (not a JSON-RPC error).
 */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  /** Optional structured detail, returned as `structuredContent`. */
  readonly structuredContent: unknown;

  constructor(message: string, options?: { cause?: unknown; structuredContent?: unknown }) {
    super(message, options);
    this.structuredContent = options?.structuredContent;
  }
}

/** Validates a value (sync or async). */
export type Validator = (value: unknown) => Promise<{ ok: true; value: unknown } | { ok: false; issues: readonly Issue[] }> | { ok: true; value: unknown } | { ok: false; issues: readonly Issue[] };

/** A tool ready to serve. */
export interface CompiledTool {
  readonly key: string;
  readonly name: string;
  /** The wire definition for `tools/list` (built once). */
  readonly wire: Tool;
  readonly handler: ToolHandler<never>;
  readonly validateInput: Validator;
  readonly validateOutput: Validator | undefined;
  readonly headers: readonly ToolHeaderParam[];
  disabled: boolean;
  /** Set for a forwarded tool (`forwardTool`): serves calls with the params as received. */
  readonly forward?: ForwardedHandler<Record<string, unknown>>;
}

const EMPTY_INPUT: JsonSchemaObject = Object.freeze({ type: 'object', additionalProperties: false });

/**
 * Gives a Standard Schema that cannot describe itself as JSON Schema (valibot without
 * `@valibot/to-json-schema`, ArkType, ...) the JSON Schema clients see in `tools/list`.
 * Validation still uses the Standard Schema; the JSON Schema is only published (and checked
 * for safety when the tool is registered).
 *
 * @example
 * ```ts
 * server.tool('add', { inputSchema: withJsonSchema(v.object({ a: v.number() }), { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }) }, ({ a }) => String(a));
 * ```
 */
export function withJsonSchema<S extends StandardSchemaV1>(schema: S, jsonSchema: JsonSchemaObject): S {
  const standard = schema['~standard'];
  return Object.freeze({
    ...schema,
    '~standard': Object.freeze({ ...standard, validate: standard.validate.bind(standard), jsonSchema: { input: () => ({ ...jsonSchema }) } }),
  }) as S;
}

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return typeof value === 'object' && value !== null && '~standard' in value;
}

function standardValidator(schema: StandardSchemaV1): Validator {
  return async (value) => {
    const result = await schema['~standard'].validate(value);
    if (result.issues === undefined) return { ok: true, value: result.value };
    return {
      ok: false,
      issues: result.issues.map((issue) => ({
        path: (issue.path ?? []).map((seg) => {
          const key = typeof seg === 'object' && seg !== null ? seg.key : seg;
          return typeof key === 'number' ? key : String(key);
        }),
        message: issue.message,
      })),
    };
  };
}

function jsonSchemaOf(schema: JsonSchemaObject | StandardSchemaV1, what: string): JsonSchemaObject {
  if (!isStandardSchema(schema)) return schema;
  const provider = schema['~standard'].jsonSchema;
  if (provider === undefined) {
    throw new McpError(
      McpErrorCode.InvalidArgument,
      `the ${what} is a Standard Schema without a JSON Schema form (Standard JSON Schema); use a library version that provides one or pass JSON Schema`,
    );
  }
  return provider.input({ target: 'draft-2020-12' });
}

function validatorOf(schema: JsonSchemaObject | StandardSchemaV1): Validator {
  if (isStandardSchema(schema)) return standardValidator(schema);
  const compiled: CompiledJsonSchema = compileJsonSchema(schema);
  return (value) => compiled.validate(value);
}

/**
 * A Standard Schema validator that first waits for the published JSON form to compile: a
 * JSON form only ajv handles is checked after registration, and when ajv refuses it every
 * call fails with that `ERR_MCP_INVALID_ARGUMENT` error (as registration would have).
 */
function afterJsonForm(jsonForm: CompiledJsonSchema, validate: Validator): Validator {
  let settled = false;
  jsonForm.ready.then(
    () => {
      settled = true;
    },
    () => {}, // rejected again, to the caller, below
  );
  return (value) => (settled ? validate(value) : jsonForm.ready.then(() => validate(value)));
}

/** Compiles a tool definition. Throws {@link McpError} `ERR_MCP_INVALID_ARGUMENT` when it is unusable. */
export function compileTool(name: string, definition: ToolDefinition, handler: ToolHandler<never>): CompiledTool {
  const nameProblems = checkToolName(name);
  if (nameProblems.length > 0) throw new McpError(McpErrorCode.InvalidArgument, `invalid tool name ${JSON.stringify(name)}: ${nameProblems.join('; ')}`);
  const input = definition.inputSchema ?? EMPTY_INPUT;
  const inputJson = jsonSchemaOf(input, `input schema of tool ${name}`);
  if (inputJson['type'] !== 'object') {
    throw new McpError(McpErrorCode.InvalidArgument, `the input schema of tool ${name} must have "type": "object" at its root`);
  }
  // Compile (and safety-check) the JSON form even for Standard Schemas: it is what clients see.
  // A schema outside the built-in subset is compiled by ajv after this returns; its failure,
  // if any, surfaces on the first call.
  const inputJsonForm = compileJsonSchema(inputJson);
  const headerAnalysis = extractMcpHeaders(inputJson);
  if (headerAnalysis.problems.length > 0) {
    throw new McpError(McpErrorCode.InvalidArgument, `tool ${name} has invalid x-mcp-header annotations: ${headerAnalysis.problems.join('; ')}`);
  }
  const output = definition.outputSchema;
  const outputJson = output === undefined ? undefined : jsonSchemaOf(output, `output schema of tool ${name}`);
  const wire: Tool = {
    name,
    ...(definition.title !== undefined ? { title: definition.title } : {}),
    ...(definition.description !== undefined ? { description: definition.description } : {}),
    ...(definition.icons !== undefined ? { icons: [...definition.icons] } : {}),
    inputSchema: inputJson as Tool['inputSchema'],
    ...(outputJson !== undefined ? { outputSchema: outputJson as Record<string, unknown> } : {}),
    ...(definition.annotations !== undefined ? { annotations: definition.annotations } : {}),
    ...(definition.execution !== undefined ? { execution: definition.execution } : {}),
    ...(definition._meta !== undefined ? { _meta: { ...definition._meta } } : {}),
  };
  return {
    key: name,
    name,
    wire: Object.freeze(wire),
    handler,
    validateInput: isStandardSchema(input) ? afterJsonForm(inputJsonForm, validatorOf(input)) : validatorOf(input),
    validateOutput: output === undefined ? undefined : validatorOf(output),
    headers: headerAnalysis.headers.map((h) => ({ name: h.name, path: h.path, type: h.type })),
    disabled: false,
  };
}

/** A `CallToolResult` as the server sends it (before revision stamping). */
export type CallToolResultBody = Record<string, unknown> & { content: unknown[]; isError?: boolean; structuredContent?: unknown };

/** The `isError` result of arguments that fail a tool's input schema. */
export function invalidArguments(name: string, issues: readonly Issue[]): CallToolResultBody {
  return errorResult(`Invalid arguments for tool ${name}: ${formatIssues(issues.map((i) => ({ path: ['arguments', ...i.path], message: i.message })))}`);
}

function errorResult(text: string, structuredContent?: unknown): CallToolResultBody {
  const result: CallToolResultBody = { content: [{ type: 'text', text }], isError: true };
  if (structuredContent !== undefined) result.structuredContent = structuredContent;
  return result;
}

/** Normalizes what a handler returned into a `CallToolResult`. */
export function toCallToolResult(value: ToolReturn): CallToolResultBody {
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (typeof value !== 'object' || value === null) throw new TypeError('a tool handler must return a string or a result object');
  const content = value.content ?? [];
  const result: CallToolResultBody = { ...value, content: [...content] };
  // The spec asks servers to mirror structured output into a text block for older clients.
  if (value.structuredContent !== undefined && content.length === 0) {
    result.content = [{ type: 'text', text: JSON.stringify(value.structuredContent) }];
  }
  return result;
}

/**
 * Runs a tool: validates arguments, calls the handler, normalizes and checks the result.
 * Protocol failures propagate as {@link JsonRpcError}; execution failures become results.
 * Other throws propagate unchanged (the server turns them into a generic -32603).
 */
export async function runTool(tool: CompiledTool, args: unknown, context: HandlerContext): Promise<CallToolResultBody> {
  const checked = await tool.validateInput(args ?? {});
  if (!checked.ok) return invalidArguments(tool.name, checked.issues);
  let returned: ToolReturn;
  try {
    returned = await (tool.handler as ToolHandler<unknown>)(checked.value, context);
  } catch (error) {
    if (error instanceof ToolError) return errorResult(error.message, error.structuredContent);
    throw error;
  }
  const result = toCallToolResult(returned);
  if (tool.validateOutput !== undefined && result.isError !== true) {
    if (result.structuredContent === undefined) {
      throw new JsonRpcError(ErrorCode.InternalError, `Tool ${tool.name} declares an output schema but returned no structured content`);
    }
    const out = await tool.validateOutput(result.structuredContent);
    if (!out.ok) {
      throw new JsonRpcError(ErrorCode.InternalError, `Tool ${tool.name} returned structured content that does not match its output schema`, {
        issues: out.issues.map((i) => formatIssues([i])),
      });
    }
  }
  return result;
}
