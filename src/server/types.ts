/**
 * The public types of the server API: definitions of tools, resources and prompts, their
 * handlers, and the context every handler receives.
 *
 * A handler is written once for both protocol eras. What it needs from the client
 * (elicitation, sampling, roots) it asks through its context: on 2026-07-28 the server
 * answers with an `InputRequiredResult` and runs the handler again when the client retries
 * with the answers; on the stateful revisions the server sends a real request and waits.
 *
 * @module
 */
import type { RequestId } from '../jsonrpc/messages.js';
import type { ClientCapabilities } from '../protocol/model/capabilities.js';
import type { Icon, Implementation, LoggingLevel } from '../protocol/model/common.js';
import type { ContentBlock } from '../protocol/model/content.js';
import type { ElicitParams, ElicitResult } from '../protocol/model/elicitation.js';
import type { InputRequest, InputRequiredResult } from '../protocol/model/mrtr.js';
import type { PromptMessage } from '../protocol/model/prompts.js';
import type { ResourceContents } from '../protocol/model/resource.js';
import type { CreateMessageParams, CreateMessageResult } from '../protocol/model/sampling.js';
import type { ToolAnnotations, ToolExecution } from '../protocol/model/tool.js';
import type { CompleteResult, ListRootsResult } from '../protocol/model/utilities.js';
import type { ProtocolRevision } from '../protocol/revisions.js';
import type { MessageExtra, Principal } from '../transport/types.js';
import type { ServerSession } from './session.js';

/** A JSON Schema object (2020-12 unless `$schema` says otherwise). */
export type JsonSchemaObject = Readonly<Record<string, unknown>>;

/**
 * A Standard Schema (https://standardschema.dev): zod v4, valibot, ArkType and others
 * implement it. Only the members Switchboard uses are typed here.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    /** Standard JSON Schema (optional): how the schema describes itself as JSON Schema. */
    readonly jsonSchema?: { readonly input: (options: { readonly target: string }) => Record<string, unknown> } | undefined;
  };
}

/** The outcome of a Standard Schema validation. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined }> };

/**
 * The arguments type a tool's input schema describes: the output type of a Standard Schema,
 * the object type of a JSON Schema written `as const` (see {@link FromJsonSchema}), or
 * `Record<string, unknown>` for a schema whose shape is not known at compile time.
 */
export type InferArgs<S> =
  S extends StandardSchemaV1<unknown, infer O> ? O : IsLiteralSchema<S> extends true ? FromJsonSchema<S> : Record<string, unknown>;

/**
 * The `structuredContent` type an output schema describes: the input type of a Standard
 * Schema (what the handler hands over to be validated), the type of a JSON Schema written
 * `as const`, or `unknown`.
 */
export type InferStructured<S> = S extends StandardSchemaV1<infer I, unknown> ? I : IsLiteralSchema<S> extends true ? FromJsonSchema<S> : unknown;

/** True when `S` is a JSON Schema known at compile time (`as const`): its `type` is a literal. */
type IsLiteralSchema<S> = S extends { readonly type: infer T } ? (string extends T ? false : true) : false;

/** How deep {@link FromJsonSchema} follows nested schemas before it answers `unknown`. */
type Depth = [never, 0, 1, 2, 3, 4, 5, 6];

/** Flattens an intersection for readable hovers. */
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The TypeScript type of a JSON Schema written `as const`: `const`, `enum`, `anyOf`/`oneOf`,
 * `type` (one or a list) with `string`, `number`, `integer`, `boolean`, `null`, `array`
 * (`items`) and `object` (`properties`, `required`, `additionalProperties`). Nesting deeper
 * than 7 levels, and keywords it does not know, give `unknown`.
 */
export type FromJsonSchema<S, D extends number = 7> = [D] extends [never]
  ? unknown
  : S extends { readonly const: infer C }
    ? C
    : S extends { readonly enum: readonly (infer E)[] }
      ? E
      : S extends { readonly anyOf: readonly (infer V)[] }
        ? FromJsonSchema<V, Depth[D]>
        : S extends { readonly oneOf: readonly (infer V)[] }
          ? FromJsonSchema<V, Depth[D]>
          : S extends { readonly type: infer T }
            ? T extends readonly (infer U)[]
              ? FromTypeName<U, S, Depth[D]>
              : FromTypeName<T, S, Depth[D]>
            : unknown;

/** One `type` name of schema `S`. */
type FromTypeName<T, S, D extends number> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { readonly items: infer I }
            ? FromJsonSchema<I, D>[]
            : unknown[]
          : T extends 'object'
            ? FromObjectSchema<S, D>
            : unknown;

/** The names in `required`. */
type RequiredKeys<S> = S extends { readonly required: readonly (infer R)[] } ? R & string : never;

/** What `additionalProperties` allows besides the declared properties. */
type Additional<S, D extends number> = S extends { readonly additionalProperties: false }
  ? unknown
  : S extends { readonly additionalProperties: infer A extends object }
    ? Record<string, FromJsonSchema<A, D>>
    : Record<string, unknown>;

/** An `object` schema: required properties, optional ones, and the additional ones. */
type FromObjectSchema<S, D extends number> = S extends { readonly properties: infer P }
  ? Simplify<
      { -readonly [K in keyof P & RequiredKeys<S>]: FromJsonSchema<P[K], D> } & {
        -readonly [K in Exclude<keyof P, RequiredKeys<S>>]?: FromJsonSchema<P[K], D>;
      }
    > &
      Additional<S, D>
  : Additional<S, D>;

/** Identity and instructions of a server. */
export interface ServerInfo extends Implementation {
  /** Guidance for the model on using this server (returned by `server/discover` / `initialize`). */
  readonly instructions?: string;
}

/** Cache hints put on cacheable results (2026-07-28 `ttlMs` / `cacheScope`). */
export interface CacheHints {
  /** Milliseconds the result stays fresh. */
  readonly ttlMs: number;
  /** `public`: shareable across users; `private`: only within one authorization context. */
  readonly cacheScope: 'public' | 'private';
}

/** Per-request facts and helpers every handler receives. */
export interface HandlerContext {
  /** The JSON-RPC id of the request (of this round, on MRTR retries). */
  readonly requestId: RequestId;
  /** The method being served. */
  readonly method: string;
  /** The protocol revision of this request. */
  readonly protocolVersion: ProtocolRevision;
  /** What the client declared for this request (2026-07-28) or this session (legacy). */
  readonly clientCapabilities: ClientCapabilities;
  /** The client's self-description, for display and logging only. */
  readonly clientInfo: Implementation | undefined;
  /**
   * The stateful session (revisions up to 2025-11-25) this request belongs to; undefined on
   * 2026-07-28. Keep it to reach the client later, e.g. with
   * `server.notifyElicitationComplete(session, id)` after a URL-mode elicitation.
   */
  readonly session: ServerSession | undefined;
  /**
   * Who sent the request (`DispatchEnv.principal`: the HTTP `auth` option's verified token,
   * or what the transport was told), if anyone. `principal.id` is what `requestState`,
   * sessions and tasks are bound to; `principal.auth` holds the token's claims and scopes.
   */
  readonly principal: Principal | undefined;
  /** Aborted when the client cancels or goes away. */
  readonly signal: AbortSignal;
  /**
   * Calls `listener` once when the request is cancelled, like a listener on {@link signal} but
   * without creating the signal when the transport can avoid it (a request whose handler only
   * needs to hear of a cancellation then costs no `AbortSignal`). Nothing is called for a
   * cancellation that came before: check `signal.aborted` first where that matters. Returns
   * the function that removes the listener.
   */
  onAbort(listener: () => void): () => void;
  /** The request's `_meta` as received (read-only). */
  readonly meta: Readonly<Record<string, unknown>>;
  /** Transport facts (HTTP headers, ...). */
  readonly extra: MessageExtra | undefined;
  /** W3C trace context carried in `_meta`, if any. */
  readonly trace: TraceContext | undefined;
  /**
   * MRTR round: 1 on the first call, 2 on the first retry after an `input_required` answer,
   * and so on. Always 1 on the stateful revisions.
   */
  readonly round: number;
  /** Reports progress when the client asked for it (a progress token); otherwise a no-op. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /**
   * Sends a log message to the client when it asked for this level or a lower one (2026:
   * the request's `_meta` log level; legacy: `logging/setLevel`); otherwise a no-op.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /** Asks the user for input (form or URL mode). `key` names the input request (default: automatic). */
  elicit(params: ElicitParams, options?: InputOptions): Promise<ElicitResult>;
  /** Asks the client's model for a completion (deprecated feature in 2026-07-28). */
  sample(params: CreateMessageParams, options?: InputOptions): Promise<CreateMessageResult>;
  /** Asks the client for its roots (deprecated feature in 2026-07-28). */
  listRoots(options?: InputOptions): Promise<ListRootsResult>;
  /**
   * Asks several things in one round: on 2026-07-28 one `InputRequiredResult` carries them
   * all. Resolves with the answers by key.
   */
  input<K extends string>(requests: Readonly<Record<K, InputRequest>>): Promise<Record<K, unknown>>;
  /**
   * The handler's own data: what it carried over from an earlier MRTR round (sealed inside
   * `requestState`), or what it set with {@link setState} in this run. On the stateful
   * revisions, where questions are answered inline, it is simply what was set.
   */
  readonly state: unknown;
  /** Sets {@link state}; on 2026-07-28 it travels to the next round sealed inside `requestState`. */
  setState(value: unknown): void;
  /** Makes the `requestState` issued by this round single-use (replay protection). */
  singleUseState(): void;
  /**
   * Ends the HTTP response stream of this request early while the handler keeps working;
   * the client resumes with GET + Last-Event-ID and gets the rest, result included (SEP-1699
   * polling, 2025-11-25 sessions on Streamable HTTP). Returns false where that is not
   * possible (other transports and revisions), and then does nothing.
   */
  closeStream(): boolean;
}

/** Options of one input request. */
export interface InputOptions {
  /** The key in `inputRequests` (unique within the request). Default: `<kind>-<n>`. */
  readonly key?: string;
}

/** W3C Trace Context and Baggage, as carried in `_meta`. */
export interface TraceContext {
  readonly traceparent: string;
  readonly tracestate?: string;
  readonly baggage?: string;
}

/**
 * What a tool handler may return: a full result, or content for a plain success.
 * `Structured` is the type of `structuredContent`, from the tool's output schema.
 */
export type ToolReturn<Structured = unknown> =
  | {
      readonly content?: readonly ContentBlock[];
      readonly structuredContent?: Structured;
      readonly isError?: boolean;
      readonly _meta?: Readonly<Record<string, unknown>>;
    }
  | string;

/** A tool handler: gets the validated arguments and the context. */
export type ToolHandler<Args = Record<string, unknown>, Structured = unknown> = (
  args: Args,
  context: HandlerContext,
) => ToolReturn<Structured> | Promise<ToolReturn<Structured>>;

/** How a tool is described (`S`: the input schema, `O`: the output schema). */
export interface ToolDefinition<
  S extends JsonSchemaObject | StandardSchemaV1 = JsonSchemaObject | StandardSchemaV1,
  O extends JsonSchemaObject | StandardSchemaV1 = JsonSchemaObject | StandardSchemaV1,
> {
  readonly title?: string;
  readonly description?: string;
  /** JSON Schema (root `type: "object"`) or a Standard Schema. Default: no arguments. */
  readonly inputSchema?: S;
  /** JSON Schema or Standard Schema of `structuredContent`; results are validated against it. */
  readonly outputSchema?: O;
  readonly annotations?: ToolAnnotations;
  readonly icons?: readonly Icon[];
  readonly execution?: ToolExecution;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** One content item a resource handler returns; `uri` defaults to the URI that was read. */
export type ResourceContentsInput = ResourceContents extends infer C ? (C extends { uri: string } ? Omit<C, 'uri'> & { readonly uri?: string } : never) : never;

/** What a resource handler returns: the contents (one or more). */
export type ResourceReturn =
  | { readonly contents: readonly ResourceContentsInput[]; readonly _meta?: Readonly<Record<string, unknown>> }
  | readonly ResourceContentsInput[];

/** Reads a fixed resource. */
export type ResourceHandler = (uri: string, context: HandlerContext) => ResourceReturn | Promise<ResourceReturn>;

/** Reads a resource matched by a template; `variables` are the template's expansions. */
export type TemplateHandler = (uri: string, variables: Readonly<Record<string, string | readonly string[]>>, context: HandlerContext) => ResourceReturn | Promise<ResourceReturn>;

/** Offers completions for one argument/variable. */
export type Completer = (value: string, context: CompletionContext) => readonly string[] | Promise<readonly string[]>;

/** What a completer knows besides the partial value. */
export interface CompletionContext {
  /** Values of the other arguments already chosen. */
  readonly arguments: Readonly<Record<string, string>>;
  readonly handler: HandlerContext;
}

/** How a fixed resource is described. */
export interface ResourceDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly size?: number;
  readonly icons?: readonly Icon[];
  readonly annotations?: Readonly<Record<string, unknown>>;
  readonly _meta?: Readonly<Record<string, unknown>>;
  /** Cache hints for `resources/read` of this resource (default: the server's). */
  readonly cache?: CacheHints;
}

/** How a resource template is described. */
export interface ResourceTemplateDefinition extends Omit<ResourceDefinition, 'size'> {
  /** Completers for template variables, by variable name. */
  readonly complete?: Readonly<Record<string, Completer>>;
  /** Lists concrete resources of this template for `resources/list`. */
  readonly list?: (context: HandlerContext) => readonly ({ readonly uri: string } & ResourceDefinition)[] | Promise<readonly ({ readonly uri: string } & ResourceDefinition)[]>;
}

/** One declared prompt argument. */
export interface PromptArgumentDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly required?: boolean;
  /** Completion for this argument. */
  readonly complete?: Completer;
}

/** How a prompt is described. */
export interface PromptDefinition {
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: readonly PromptArgumentDefinition[];
  readonly icons?: readonly Icon[];
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** What a prompt handler returns. */
export type PromptReturn = { readonly description?: string; readonly messages: readonly PromptMessage[]; readonly _meta?: Readonly<Record<string, unknown>> };

/** Renders a prompt from its (string) arguments. */
export type PromptHandler = (args: Readonly<Record<string, string>>, context: HandlerContext) => PromptReturn | Promise<PromptReturn>;

/** A registered primitive: remove it or toggle it (both notify listeners of list changes). */
export interface RegisteredHandle {
  /** Removes it from the server. */
  remove(): void;
  /** Hides it from lists and calls (true) or shows it again (false). */
  disable(disabled?: boolean): void;
}

// ---- definitions from elsewhere (see forward.ts) ----

/**
 * Serves a forwarded request. `params` are the request params as received (incl.
 * `arguments`, `inputResponses`, and `requestState` already unsealed); the result goes to the
 * client as returned (stamped for the revision), or, as an `InputRequiredResult`, asks the
 * client for input (see `McpServer`).
 */
export type ForwardedHandler<R> = (params: Readonly<Record<string, unknown>>, ctx: HandlerContext) => Promise<R | InputRequiredResult>;

/** Answers `completion/complete` for a forwarded prompt or template (params as received). */
export type ForwardedCompleter = (params: Readonly<Record<string, unknown>>, ctx: HandlerContext) => Promise<CompleteResult>;

/** A forwarded definition, changed in place. */
export interface ForwardedHandle<D> {
  /** Replaces the definition; the same key keeps its list position (another key moves it to the end). */
  update(definition: D): void;
  /** Removes it. */
  remove(): void;
  /** Shows it again after {@link disable}. */
  enable(): void;
  /** Hides it from lists and requests (as if missing). */
  disable(): void;
}

/** Options of `forwardTool`. */
export interface ForwardToolOptions {
  /** Validate `arguments` against the tool's `inputSchema` before the handler runs. Default false. */
  readonly validateArguments?: boolean;
}

/** Options of `forwardPrompt` / `forwardTemplate`. */
export interface ForwardCompleteOptions {
  /** Serves `completion/complete` for this prompt or template. */
  readonly complete?: ForwardedCompleter;
}

/** The task methods a {@link ForwardedTasks} handler serves. */
export type ForwardedTaskMethod = 'tasks/get' | 'tasks/update' | 'tasks/cancel';

/** Serves the tasks extension's methods for tasks created elsewhere (see `tasks/forwarded.ts`). */
export interface ForwardedTasks {
  /**
   * Serves one request (params validated, extension declared). An unknown task id, or one the
   * requestor does not own, must be answered -32602 exactly alike.
   */
  serve(method: ForwardedTaskMethod, params: Readonly<Record<string, unknown>>, ctx: HandlerContext): Promise<Record<string, unknown>>;
}
