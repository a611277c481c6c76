/**
 * The typed calls of {@link McpClient}: lists (all pages, cached per page), tools, prompts,
 * resources, completion, ping, resource subscriptions (stateful era) and a generic
 * `request`. They sit on a small seam (`send`, `description`, `cacheKey`) the client
 * implements, so this file knows no connection details.
 *
 * @module
 */
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/messages.js';
import type { ResultType } from '../protocol/model/common.js';
import type { InputRequiredResult } from '../protocol/model/mrtr.js';
import type { Prompt, GetPromptResult } from '../protocol/model/prompts.js';
import type { Resource, ResourceTemplate } from '../protocol/model/resource.js';
import type { ReadResourceResult } from '../protocol/model/resources.js';
import type { Tool } from '../protocol/model/tool.js';
import type { CallToolResult } from '../protocol/model/tools.js';
import type { CompleteParams, CompleteResult } from '../protocol/model/utilities.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { formatIssues, validate, type Schema } from '../util/schema.js';
import type { ResultCache } from './cache.js';
import { ToolIndex } from './toolIndex.js';
import type { AutoCallOptions, CallOptions, ListOptions, ManualCallOptions, ServerDescription } from './types.js';

/** One page of a list result. */
export interface Page<K extends string, T> {
  readonly items: readonly T[];
  readonly nextCursor: string | undefined;
  /** The whole result as received (with `ttlMs`, `cacheScope`, `_meta`, ...). */
  readonly result: Readonly<Record<K, readonly T[]>> & Readonly<Record<string, unknown>>;
}

/** A Standard Schema (zod v4, valibot, ...): only what `request` uses. */
export interface StandardSchemaLike<T> {
  readonly '~standard': {
    readonly validate: (value: unknown) => { readonly value: T; readonly issues?: undefined } | { readonly issues: readonly { readonly message: string }[] } | Promise<unknown>;
  };
}

/** What the seam's `send` resolves with: the decoded result and how it was reached. */
export interface SendOutcome {
  /** The decoded result (an `InputRequiredResult` only for `input: 'manual'`). */
  readonly value: Record<string, unknown>;
  /** Input rounds the client answered itself (0: answered at once). */
  readonly rounds: number;
  /** The result's `resultType` (`complete` on the stateful era). */
  readonly resultType: ResultType;
}

/**
 * True when a call's result is an `InputRequiredResult` (only `input: 'manual'` calls resolve
 * with one): answer its `inputRequests` and retry with `inputResponses` and `requestState`.
 */
export function isInputRequired(result: object): result is InputRequiredResult {
  return (result as { resultType?: unknown }).resultType === 'input_required';
}

/** True when the options continue a manual MRTR round (the answer must not come from or go to the cache). */
function isRetry(options: CallOptions): boolean {
  return options.inputResponses !== undefined || options.requestState !== undefined;
}

/** True for one of our schemas or a Standard Schema (as opposed to call options). */
function isSchema(value: unknown): value is Schema<unknown> | StandardSchemaLike<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  return '~standard' in value || (typeof (value as { check?: unknown }).check === 'function' && typeof (value as { expected?: unknown }).expected === 'string');
}

const MAX_PAGES = 1000;

/** The typed calls; {@link McpClient} supplies the seam. */
export abstract class McpClientCalls {
  /** @internal Cacheable results. */
  protected readonly cache: ResultCache;
  /** @internal Known tools and their output validators. */
  protected readonly tools: ToolIndex;

  protected constructor(logger: Logger, cache: ResultCache) {
    this.cache = cache;
    this.tools = new ToolIndex(logger);
  }

  /** @internal */
  protected abstract description(): ServerDescription;
  /** @internal */
  protected abstract cacheKey(): string | undefined;
  /** @internal */
  protected abstract send(method: string, params: Params, options: CallOptions): Promise<SendOutcome>;

  async #page<K extends string, T>(method: string, key: K, cursor: string | undefined, options: ListOptions): Promise<Page<K, T>> {
    const arg = cursor ?? '';
    let result = options.fresh === false ? undefined : this.cache.get(method, arg, this.cacheKey());
    if (result === undefined) {
      result = (await this.send(method, cursor === undefined ? {} : { cursor }, options)).value;
      this.cache.set(method, arg, result, this.cacheKey());
    }
    const next = result['nextCursor'];
    return {
      items: (result[key] as T[] | undefined) ?? [],
      nextCursor: typeof next === 'string' ? next : undefined,
      result: result as Page<K, T>['result'],
    };
  }

  /** Every page of a list; an invalid cursor (-32602) on a later page restarts once from scratch. */
  async #all<K extends string, T>(method: string, key: K, options: ListOptions): Promise<T[]> {
    for (let attempt = 0; ; attempt++) {
      const items: T[] = [];
      const seen = new Set<string>();
      let cursor: string | undefined;
      try {
        for (let n = 0; n < MAX_PAGES; n++) {
          const page: Page<K, T> = await this.#page(method, key, cursor, attempt === 0 ? options : { ...options, fresh: false });
          items.push(...page.items);
          if (page.nextCursor === undefined) return items;
          if (seen.has(page.nextCursor)) throw new McpError(McpErrorCode.InvalidResponse, `${method} repeated the cursor ${JSON.stringify(page.nextCursor)}`);
          seen.add(page.nextCursor);
          cursor = page.nextCursor;
        }
        throw new McpError(McpErrorCode.LimitExceeded, `${method} returned more than ${MAX_PAGES} pages`);
      } catch (error) {
        if (attempt > 0 || cursor === undefined || !(error instanceof JsonRpcError) || error.code !== ErrorCode.InvalidParams) throw error;
        this.cache.invalidate(method);
      }
    }
  }

  /** One page of `tools/list` (tools with invalid `x-mcp-header` annotations dropped). */
  async listToolsPage(cursor?: string, options: ListOptions = {}): Promise<Page<'tools', Tool>> {
    const page = await this.#page<'tools', Tool>('tools/list', 'tools', cursor, options);
    return { ...page, items: this.tools.surface(page.items) };
  }

  /** Every tool (all pages, cached), without tools whose `x-mcp-header` annotations are invalid. */
  async listTools(options: ListOptions = {}): Promise<Tool[]> {
    return this.tools.surface(await this.#all<'tools', Tool>('tools/list', 'tools', options));
  }

  /**
   * Calls a tool. Protocol errors reject with a `JsonRpcError`; tool failures resolve with
   * `isError: true`. When the tool is known from `listTools`, `structuredContent` is checked
   * against its `outputSchema` (`ERR_MCP_INVALID_RESPONSE` on mismatch). With
   * `{ input: 'manual' }` an `InputRequiredResult` is returned as is ({@link isInputRequired}).
   * When `options.capabilities` declares the tasks extension (`io.modelcontextprotocol/tasks`),
   * the server may answer with a `CreateTaskResult` (`resultType: "task"`), returned as is:
   * follow it with `request('tasks/get', { taskId }, { capabilities })`.
   */
  callTool(name: string, args: Readonly<Record<string, unknown>> | undefined, options: ManualCallOptions): Promise<CallToolResult | InputRequiredResult>;
  callTool(name: string, args?: Readonly<Record<string, unknown>>, options?: AutoCallOptions): Promise<CallToolResult>;
  callTool(name: string, args: Readonly<Record<string, unknown>> | undefined, options: CallOptions): Promise<CallToolResult | InputRequiredResult>;
  callTool(name: string, args?: Readonly<Record<string, unknown>>, options: CallOptions = {}): Promise<CallToolResult | InputRequiredResult> {
    const params: Params = args === undefined ? { name } : { name, arguments: args };
    // Chained once rather than `async`: a forwarding host pays every promise per call.
    return this.send('tools/call', params, options).then((outcome) => {
      const result = outcome.value as CallToolResult | InputRequiredResult;
      // A CreateTaskResult (only to a call whose `capabilities` declared the tasks extension) has no output to check.
      if (isInputRequired(result) || (result as { resultType?: unknown }).resultType === 'task') return result;
      const checking = this.tools.check(name, result);
      return checking === undefined ? result : checking.then(() => result);
    });
  }

  /** Every prompt (all pages, cached). */
  listPrompts(options: ListOptions = {}): Promise<Prompt[]> {
    return this.#all<'prompts', Prompt>('prompts/list', 'prompts', options);
  }

  /** One page of `prompts/list`. */
  listPromptsPage(cursor?: string, options: ListOptions = {}): Promise<Page<'prompts', Prompt>> {
    return this.#page('prompts/list', 'prompts', cursor, options);
  }

  /**
   * Renders a prompt (answering input requests on the stateless era, or, with
   * `{ input: 'manual' }`, returning the `InputRequiredResult`).
   */
  getPrompt(name: string, args: Readonly<Record<string, string>> | undefined, options: ManualCallOptions): Promise<GetPromptResult | InputRequiredResult>;
  getPrompt(name: string, args?: Readonly<Record<string, string>>, options?: AutoCallOptions): Promise<GetPromptResult>;
  getPrompt(name: string, args: Readonly<Record<string, string>> | undefined, options: CallOptions): Promise<GetPromptResult | InputRequiredResult>;
  async getPrompt(name: string, args?: Readonly<Record<string, string>>, options: CallOptions = {}): Promise<GetPromptResult | InputRequiredResult> {
    const params: Params = args === undefined ? { name } : { name, arguments: args };
    return (await this.send('prompts/get', params, options)).value as GetPromptResult | InputRequiredResult;
  }

  /** Every resource (all pages, cached). */
  listResources(options: ListOptions = {}): Promise<Resource[]> {
    return this.#all<'resources', Resource>('resources/list', 'resources', options);
  }

  /** One page of `resources/list`. */
  listResourcesPage(cursor?: string, options: ListOptions = {}): Promise<Page<'resources', Resource>> {
    return this.#page('resources/list', 'resources', cursor, options);
  }

  /** Every resource template (all pages, cached). */
  listResourceTemplates(options: ListOptions = {}): Promise<ResourceTemplate[]> {
    return this.#all<'resourceTemplates', ResourceTemplate>('resources/templates/list', 'resourceTemplates', options);
  }

  /** One page of `resources/templates/list`. */
  listResourceTemplatesPage(cursor?: string, options: ListOptions = {}): Promise<Page<'resourceTemplates', ResourceTemplate>> {
    return this.#page('resources/templates/list', 'resourceTemplates', cursor, options);
  }

  /**
   * Reads a resource (cached per URI while fresh; answers after MRTR rounds are never
   * cached, and a retry with `inputResponses`/`requestState` never comes from the cache).
   * With `{ input: 'manual' }` an `InputRequiredResult` is returned as is.
   */
  readResource(uri: string, options: ListOptions & ManualCallOptions): Promise<ReadResourceResult | InputRequiredResult>;
  readResource(uri: string, options?: ListOptions & AutoCallOptions): Promise<ReadResourceResult>;
  readResource(uri: string, options: ListOptions): Promise<ReadResourceResult | InputRequiredResult>;
  async readResource(uri: string, options: ListOptions = {}): Promise<ReadResourceResult | InputRequiredResult> {
    const key = this.cacheKey();
    const retry = isRetry(options);
    const hit = options.fresh === false || retry ? undefined : this.cache.get('resources/read', uri, key);
    if (hit !== undefined) return hit as ReadResourceResult;
    const { value, rounds, resultType } = await this.send('resources/read', { uri }, options);
    if (rounds === 0 && !retry && resultType === 'complete') this.cache.set('resources/read', uri, value, key);
    return value as ReadResourceResult | InputRequiredResult;
  }

  /** `completion/complete` for a prompt argument or a resource-template variable. */
  async complete(
    ref: CompleteParams['ref'],
    argument: CompleteParams['argument'],
    context?: CompleteParams['context'],
    options: CallOptions = {},
  ): Promise<CompleteResult['completion']> {
    const params: Params = context === undefined ? { ref, argument } : { ref, argument, context };
    return ((await this.send('completion/complete', params, options)).value as CompleteResult).completion;
  }

  /** Stateful era: `ping`. Stateless era (no ping): a `server/discover` round trip. */
  async ping(options: CallOptions = {}): Promise<void> {
    await this.send(this.description().era === 'stateful' ? 'ping' : 'server/discover', {}, options);
  }

  /** Stateful era: `resources/subscribe` (updates then arrive unsolicited). Stateless: use `listen`. */
  async subscribeResource(uri: string, options: CallOptions = {}): Promise<void> {
    this.#requireStateful('resources/subscribe');
    await this.send('resources/subscribe', { uri }, options);
  }

  /** Stateful era: `resources/unsubscribe`. */
  async unsubscribeResource(uri: string, options: CallOptions = {}): Promise<void> {
    this.#requireStateful('resources/unsubscribe');
    await this.send('resources/unsubscribe', { uri }, options);
  }

  /**
   * Sends any request as is: stamped for the negotiated revision (the 2026-07-28 `_meta`),
   * and its result decoded for that revision when the method is one of it (an unknown method
   * resolves with the raw result). MRTR-capable methods are driven to completion, unless
   * `options.input` is `manual`: then an `InputRequiredResult` is returned too, for a caller
   * that forwards the question (retry with `options.inputResponses`/`requestState`).
   *
   * With a `resultSchema` (ours, or a Standard Schema such as zod) before the options, the
   * result is validated (`ERR_MCP_INVALID_RESPONSE`).
   */
  request<T>(method: string, params: Params | undefined, resultSchema: Schema<T> | StandardSchemaLike<T>, options?: CallOptions): Promise<T>;
  request(method: string, params?: Params, options?: CallOptions): Promise<Record<string, unknown>>;
  async request<T>(method: string, params: Params = {}, third?: Schema<T> | StandardSchemaLike<T> | CallOptions, fourth: CallOptions = {}): Promise<T | Record<string, unknown>> {
    const resultSchema = isSchema(third) ? (third as Schema<T> | StandardSchemaLike<T>) : undefined;
    const options = resultSchema === undefined ? ((third as CallOptions | undefined) ?? {}) : fourth;
    const { value } = await this.send(method, params, options);
    if (resultSchema === undefined) return value;
    if ('~standard' in resultSchema) {
      const outcome = (await resultSchema['~standard'].validate(value)) as { value?: T; issues?: readonly { message: string }[] };
      if (outcome.issues !== undefined) {
        throw new McpError(McpErrorCode.InvalidResponse, `Invalid ${method} result: ${outcome.issues[0]?.message ?? 'invalid'}`, { cause: value });
      }
      return outcome.value as T;
    }
    const checked = validate(resultSchema, value, { path: ['result'] });
    if (!checked.ok) throw new McpError(McpErrorCode.InvalidResponse, `Invalid ${method} result: ${formatIssues(checked.issues.slice(0, 1))}`, { cause: value });
    return checked.value;
  }

  #requireStateful(method: string): void {
    if (this.description().era !== 'stateful') {
      throw new McpError(McpErrorCode.Unsupported, `${method} does not exist on the stateless era; use listen({ resourceSubscriptions })`);
    }
  }
}
