/**
 * Answering the server's questions with the client's handlers, identically for both eras:
 * the embedded input requests of an `InputRequiredResult` (2026-07-28 MRTR) and the legacy
 * server-to-client requests (`elicitation/create`, `sampling/createMessage`, `roots/list`).
 *
 * A question the client cannot answer (no handler, or a capability or mode it did not
 * declare) is a local `ERR_MCP_UNSUPPORTED` on MRTR (there is no error channel back to the
 * server) and -32601 on a legacy request.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
 * @module
 */
import { JsonRpcError } from '../jsonrpc/errors.js';
import type { MessageExtra } from '../jsonrpc/channel.js';
import type { RequestHandler } from '../jsonrpc/connection.js';
import { hasCapability, type ClientCapabilities } from '../protocol/model/capabilities.js';
import { ElicitParams, ElicitResult, type RequestedSchema } from '../protocol/model/elicitation.js';
import { CreateMessageParams, CreateMessageResult } from '../protocol/model/sampling.js';
import { ListRootsResult, type Root } from '../protocol/model/utilities.js';
import type { ProtocolRevision } from '../protocol/revisions.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { formatIssues, validate, type Schema } from '../util/schema.js';
import type { Attribution } from './routing.js';
import type { ClientHandlers, InputContext } from './types.js';

/** The capabilities a set of handlers implies. */
export function capabilitiesFor(handlers: ClientHandlers): ClientCapabilities {
  const caps: Record<string, unknown> = {};
  if (handlers.elicitation !== undefined) caps['elicitation'] = { form: {} };
  if (handlers.sampling !== undefined) caps['sampling'] = {};
  if (handlers.roots !== undefined) caps['roots'] = {};
  return caps as ClientCapabilities;
}

/**
 * Fills the fields an accepted form answer omits with the `default`s of `requestedSchema`
 * (SEP-1034). Other answers are returned unchanged.
 */
export function applyElicitationDefaults(params: ElicitParams, result: ElicitResult): ElicitResult {
  if (result.action !== 'accept' || params.mode === 'url') return result;
  const schema = (params as { requestedSchema?: RequestedSchema }).requestedSchema;
  const properties = schema?.properties;
  if (properties === undefined) return result;
  let content: Record<string, unknown> | undefined;
  for (const [name, field] of Object.entries(properties)) {
    const fallback = (field as { default?: unknown }).default;
    if (fallback === undefined || (result.content !== undefined && Object.hasOwn(result.content, name))) continue;
    content ??= { ...result.content };
    content[name] = Array.isArray(fallback) ? [...(fallback as unknown[])] : fallback;
  }
  return content === undefined ? result : ({ ...result, content } as ElicitResult);
}

function unsupported(message: string, cause?: unknown): McpError {
  return new McpError(McpErrorCode.Unsupported, message, { cause });
}

function checked<T>(schema: Schema<T>, value: unknown, what: string, fail: (message: string) => Error): T {
  const result = validate(schema, value);
  if (!result.ok) throw fail(`${what}: ${formatIssues(result.issues.slice(0, 1))}`);
  return result.value;
}

/** The question in a neutral form: method and params. */
export interface Question {
  readonly method: string;
  readonly params: unknown;
}

/**
 * Answers one question with the handlers. Throws `ERR_MCP_UNSUPPORTED` when the client
 * cannot (or did not declare it can) answer it, and `fail(...)` for malformed params.
 */
export async function answer(
  handlers: ClientHandlers,
  capabilities: ClientCapabilities,
  question: Question,
  context: InputContext,
  fail: (message: string) => Error,
): Promise<Record<string, unknown>> {
  switch (question.method) {
    case 'elicitation/create': {
      const handler = handlers.elicitation;
      if (handler === undefined || !hasCapability(capabilities, 'elicitation')) {
        throw unsupported('The server asked for elicitation, which this client does not support', question);
      }
      const params = checked(ElicitParams, question.params, 'elicitation/create params', fail);
      if (params.mode === 'url' && !hasCapability(capabilities, 'elicitation.url')) {
        throw unsupported('The server asked for URL-mode elicitation, which this client did not declare', question);
      }
      const elicitation = capabilities.elicitation as Record<string, unknown>;
      if (params.mode !== 'url' && elicitation['url'] !== undefined && elicitation['form'] === undefined) {
        throw unsupported('The server asked for form-mode elicitation, which this client did not declare', question);
      }
      const raw = await handler(params, context);
      const result = checked(ElicitResult, raw, 'the elicitation handler returned an invalid result', (m) => new McpError(McpErrorCode.InvalidArgument, m));
      return applyElicitationDefaults(params, result) as Record<string, unknown>;
    }
    case 'sampling/createMessage': {
      const handler = handlers.sampling;
      if (handler === undefined || !hasCapability(capabilities, 'sampling')) {
        throw unsupported('The server asked for sampling, which this client does not support', question);
      }
      const params = checked(CreateMessageParams, question.params, 'sampling/createMessage params', fail);
      if ((params.tools !== undefined || params.toolChoice !== undefined) && !hasCapability(capabilities, 'sampling.tools')) {
        throw unsupported('The server asked for sampling with tools, which this client did not declare', question);
      }
      const ctx = params.includeContext;
      if (ctx !== undefined && ctx !== 'none' && !hasCapability(capabilities, 'sampling.context')) {
        throw unsupported(`The server asked for sampling with includeContext "${ctx}", which this client did not declare`, question);
      }
      const raw = await handler(params, context);
      return checked(CreateMessageResult, raw, 'the sampling handler returned an invalid result', (m) => new McpError(McpErrorCode.InvalidArgument, m)) as Record<string, unknown>;
    }
    case 'roots/list': {
      const handler = handlers.roots;
      if (handler === undefined || !hasCapability(capabilities, 'roots')) {
        throw unsupported('The server asked for roots, which this client does not support', question);
      }
      const raw = await handler(context);
      const value = Array.isArray(raw) ? { roots: raw as readonly Root[] } : raw;
      return checked(ListRootsResult, value, 'the roots handler returned an invalid result', (m) => new McpError(McpErrorCode.InvalidArgument, m)) as Record<string, unknown>;
    }
    default:
      throw unsupported(`The server asked for ${JSON.stringify(question.method)}, which is not an input request this client knows`, question);
  }
}

/** What the legacy request handler needs from the client. */
export interface LegacyRequestDeps {
  /** The client-level handlers. */
  readonly handlers: ClientHandlers;
  /** The capabilities declared in `initialize`. */
  capabilities(): ClientCapabilities;
  /** The negotiated revision, or undefined before negotiation. */
  revision(): ProtocolRevision | undefined;
  /** True on the stateful era (the only one where servers send requests). */
  stateful(): boolean;
  /** The call a server request belongs to, from the transport's facts about it. */
  attribute(extra: MessageExtra | undefined): Attribution;
}

/** The handlers that answer for a call: the call's own (when it has any), kind by kind, over the client's. */
export function handlersFor(client: ClientHandlers, call: ClientHandlers | undefined): ClientHandlers {
  return call === undefined ? client : { ...client, ...call };
}

/**
 * The `Connection` request handler of a client: answers `ping` (any era) and, on the
 * stateful era, `elicitation/create`, `sampling/createMessage` and `roots/list` through the
 * handlers of the call the request belongs to (see `routing.ts`), else the client's.
 * Anything else, or a question without a handler, is -32601.
 */
export function legacyRequestHandler(deps: LegacyRequestDeps): RequestHandler {
  return async (request, rctx) => {
    if (request.method === 'ping') return {};
    const revision = deps.revision();
    if (!deps.stateful() || revision === undefined) throw JsonRpcError.methodNotFound(request.method);
    const params = request.params ?? {};
    const { relatedRequestId, handlers } = deps.attribute(rctx.extra);
    const context: InputContext =
      relatedRequestId === undefined
        ? { signal: rctx.signal, protocolVersion: revision, via: 'request' }
        : { signal: rctx.signal, protocolVersion: revision, via: 'request', relatedRequestId };
    try {
      return await answer(handlersFor(deps.handlers, handlers), deps.capabilities(), { method: request.method, params }, context, (message) => JsonRpcError.invalidParams(message));
    } catch (error) {
      if (error instanceof McpError && error.code === McpErrorCode.Unsupported) throw JsonRpcError.methodNotFound(request.method);
      throw error;
    }
  };
}
