/**
 * The handler context and the two ways of getting input from a client.
 *
 * - {@link StatelessInputBroker} (2026-07-28, MRTR): answers come from the retry's
 *   `inputResponses` and from earlier rounds sealed in `requestState`; a question without an
 *   answer stops the handler with an {@link InputRequiredError}, which the server turns
 *   into an `InputRequiredResult`. The handler runs again, from the top, on the retry.
 * - {@link PeerInputBroker} (stateful revisions): each question is a real JSON-RPC request
 *   to the client, awaited.
 *
 * Both check that the client declared the capability the question needs (-32021 on
 * 2026-07-28).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 * @module
 */
import { JsonRpcError } from '../jsonrpc/errors.js';
import type { RequestId } from '../jsonrpc/messages.js';
import { missingRequiredClientCapability } from '../protocol/errors.js';
import type { ClientCapabilities } from '../protocol/model/capabilities.js';
import type { Implementation, LoggingLevel } from '../protocol/model/common.js';
import { ElicitResult, type ElicitParams } from '../protocol/model/elicitation.js';
import type { InputRequest } from '../protocol/model/mrtr.js';
import { CreateMessageResult, type CreateMessageParams } from '../protocol/model/sampling.js';
import { ListRootsResult } from '../protocol/model/utilities.js';
import type { ProtocolRevision } from '../protocol/revisions.js';
import type { PeerRequester, MessageExtra, Principal } from '../transport/types.js';
import { onAbortOf, type AbortSource } from '../util/lazyAbort.js';
import { formatIssues, validate, type Schema } from '../util/schema.js';
import type { ServerSession } from './session.js';
import type { HandlerContext, InputOptions, TraceContext } from './types.js';

/**
 * Thrown (internally) when a stateless (2026-07-28) handler needs answers the client has not
 * given yet: the server catches it and answers with an `InputRequiredResult`. A handler that
 * catches errors broadly should rethrow it (`if (e instanceof InputRequiredError) throw e`).
 */
export class InputRequiredError extends Error {
  override readonly name = 'InputRequiredError';
  /** The questions of this round, by key. */
  readonly requests: Readonly<Record<string, InputRequest>>;

  constructor(requests: Readonly<Record<string, InputRequest>>) {
    super(`input required: ${Object.keys(requests).join(', ')}`);
    this.requests = requests;
  }
}

/** Gets answers to input requests. */
export interface InputBroker {
  ask(requests: Readonly<Record<string, InputRequest>>, signal: AbortSignal): Promise<Record<string, unknown>>;
}

const resultSchemas: Readonly<Record<InputRequest['method'], Schema<unknown>>> = {
  'elicitation/create': ElicitResult,
  'sampling/createMessage': CreateMessageResult,
  'roots/list': ListRootsResult,
};

/**
 * The client capabilities an input request needs, or undefined when they are declared.
 * Exported for tests.
 */
export function missingCapabilityFor(request: InputRequest, caps: ClientCapabilities): ClientCapabilities | undefined {
  switch (request.method) {
    case 'elicitation/create': {
      const elicitation = caps.elicitation;
      const mode = (request.params as { mode?: string }).mode ?? 'form';
      if (elicitation === undefined) return mode === 'url' ? { elicitation: { url: {} } } : { elicitation: {} };
      const declaresModes = elicitation.form !== undefined || elicitation.url !== undefined;
      // `{}` means form only.
      if (mode === 'url' && elicitation.url === undefined) return { elicitation: { url: {} } };
      if (mode === 'form' && declaresModes && elicitation.form === undefined) return { elicitation: { form: {} } };
      return undefined;
    }
    case 'sampling/createMessage': {
      if (caps.sampling === undefined) return { sampling: {} };
      const p = request.params as { tools?: unknown; toolChoice?: unknown };
      if ((p.tools !== undefined || p.toolChoice !== undefined) && caps.sampling.tools === undefined) return { sampling: { tools: {} } };
      return undefined;
    }
    case 'roots/list':
      return caps.roots === undefined ? { roots: {} } : undefined;
  }
}

function checkCapabilities(requests: Readonly<Record<string, InputRequest>>, caps: ClientCapabilities): void {
  for (const request of Object.values(requests)) {
    const missing = missingCapabilityFor(request, caps);
    if (missing !== undefined) throw missingRequiredClientCapability(missing);
  }
}

function checkAnswer(key: string, request: InputRequest, answer: unknown): unknown {
  const result = validate(resultSchemas[request.method], answer, { path: ['params', 'inputResponses', key] });
  if (!result.ok) throw JsonRpcError.invalidParams(formatIssues(result.issues), { inputResponse: key });
  return answer;
}

/** MRTR answers: from this retry's `inputResponses` and from earlier rounds' sealed answers. */
export class StatelessInputBroker implements InputBroker {
  readonly #answers: Readonly<Record<string, unknown>>;
  readonly #caps: ClientCapabilities;
  /** The answers the handler consumed in this run: carried to the next round. */
  readonly used: Record<string, unknown> = {};

  constructor(answers: Readonly<Record<string, unknown>>, caps: ClientCapabilities) {
    this.#answers = answers;
    this.#caps = caps;
  }

  async ask(requests: Readonly<Record<string, InputRequest>>): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    let missing: Record<string, InputRequest> | undefined;
    for (const [key, request] of Object.entries(requests)) {
      if (Object.hasOwn(this.#answers, key)) {
        out[key] = this.used[key] = checkAnswer(key, request, this.#answers[key]);
      } else {
        (missing ??= {})[key] = request;
      }
    }
    if (missing !== undefined) {
      checkCapabilities(missing, this.#caps);
      throw new InputRequiredError(missing);
    }
    return out;
  }
}

/** Stateful sessions: every question is a real request to the client. */
export class PeerInputBroker implements InputBroker {
  readonly #peer: PeerRequester;
  readonly #caps: ClientCapabilities;

  constructor(peer: PeerRequester, caps: ClientCapabilities) {
    this.#peer = peer;
    this.#caps = caps;
  }

  async ask(requests: Readonly<Record<string, InputRequest>>, signal: AbortSignal): Promise<Record<string, unknown>> {
    checkCapabilities(requests, this.#caps);
    const entries = Object.entries(requests);
    const answers = await Promise.all(
      entries.map(async ([key, request]) => {
        let params = (request.params ?? undefined) as Record<string, unknown> | undefined;
        // 2025-11-25 URL-mode elicitation needs an `elicitationId` (2026-07-28 dropped it, so
        // shared handlers usually leave it out): mint one when absent.
        if (request.method === 'elicitation/create' && params?.['mode'] === 'url' && typeof params['elicitationId'] !== 'string') {
          params = { ...params, elicitationId: crypto.randomUUID() };
        }
        const result = await this.#peer.request(request.method, params, { signal });
        const check = validate(resultSchemas[request.method], result);
        if (!check.ok) throw JsonRpcError.internal(`the client answered ${request.method} with an invalid result`);
        return [key, result] as const;
      }),
    );
    return Object.fromEntries(answers);
  }
}

/** Everything needed to build one {@link HandlerContext}. */
export interface ContextInit {
  readonly requestId: RequestId;
  readonly method: string;
  readonly protocolVersion: ProtocolRevision;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly session?: ServerSession | undefined;
  readonly principal: Principal | undefined;
  /** Where the signal comes from; read lazily (creating one costs microseconds). */
  readonly env: AbortSource & { readonly closeStream?: () => void };
  readonly meta: Readonly<Record<string, unknown>>;
  readonly extra: MessageExtra | undefined;
  readonly trace: TraceContext | undefined;
  readonly round: number;
  readonly state: unknown;
  readonly broker: InputBroker | undefined;
  /** Sends progress (already checked for a token); undefined when the client asked for none. */
  readonly sendProgress: ((progress: number, total?: number, message?: string) => Promise<void>) | undefined;
  /** Sends a log notification (already filtered by level); undefined when logging is off. */
  readonly sendLog: ((level: LoggingLevel, data: unknown, logger?: string) => Promise<void>) | undefined;
}

const noInput: InputBroker = {
  ask: () => Promise.reject(JsonRpcError.internal('this request cannot ask the client for input')),
};

/** The concrete {@link HandlerContext}. */
export class RequestContext implements HandlerContext {
  readonly requestId: RequestId;
  readonly method: string;
  readonly protocolVersion: ProtocolRevision;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly session: ServerSession | undefined;
  readonly principal: Principal | undefined;
  readonly meta: Readonly<Record<string, unknown>>;
  readonly extra: MessageExtra | undefined;
  readonly trace: TraceContext | undefined;
  readonly round: number;
  readonly #env: AbortSource & { readonly closeStream?: () => void };
  /** Data set by the handler for the next round. */
  nextState: unknown;
  /** Whether the next state is single-use. */
  singleUse = false;
  readonly #broker: InputBroker;
  readonly #sendProgress: ContextInit['sendProgress'];
  readonly #sendLog: ContextInit['sendLog'];
  #auto = 0;

  constructor(init: ContextInit) {
    this.requestId = init.requestId;
    this.method = init.method;
    this.protocolVersion = init.protocolVersion;
    this.clientCapabilities = init.clientCapabilities;
    this.clientInfo = init.clientInfo;
    this.session = init.session;
    this.principal = init.principal;
    this.#env = init.env;
    this.meta = init.meta;
    this.extra = init.extra;
    this.trace = init.trace;
    this.round = init.round;
    this.nextState = init.state;
    this.#broker = init.broker ?? noInput;
    this.#sendProgress = init.sendProgress;
    this.#sendLog = init.sendLog;
  }

  /** The handler's data: from the sealed state of an earlier round, or set in this run. */
  get state(): unknown {
    return this.nextState;
  }

  /** Aborted when the client cancels or goes away (created on first use). */
  get signal(): AbortSignal {
    return this.#env.signal;
  }

  /** {@inheritDoc HandlerContext.onAbort} */
  onAbort(listener: () => void): () => void {
    return onAbortOf(this.#env, listener);
  }

  async progress(progress: number, total?: number, message?: string): Promise<void> {
    if (this.#sendProgress !== undefined && !this.signal.aborted) await this.#sendProgress(progress, total, message);
  }

  async log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    if (this.#sendLog !== undefined && !this.signal.aborted) await this.#sendLog(level, data, logger);
  }

  async elicit(params: ElicitParams, options: InputOptions = {}): Promise<ElicitResult> {
    return (await this.#one('elicitation', { method: 'elicitation/create', params }, options)) as ElicitResult;
  }

  async sample(params: CreateMessageParams, options: InputOptions = {}): Promise<CreateMessageResult> {
    return (await this.#one('sampling', { method: 'sampling/createMessage', params }, options)) as CreateMessageResult;
  }

  async listRoots(options: InputOptions = {}): Promise<ListRootsResult> {
    return (await this.#one('roots', { method: 'roots/list', params: {} }, options)) as ListRootsResult;
  }

  async input<K extends string>(requests: Readonly<Record<K, InputRequest>>): Promise<Record<K, unknown>> {
    return (await this.#broker.ask(requests, this.signal)) as Record<K, unknown>;
  }

  closeStream(): boolean {
    const close = this.#env.closeStream;
    if (close === undefined) return false;
    close();
    return true;
  }

  setState(value: unknown): void {
    this.nextState = value;
  }

  singleUseState(): void {
    this.singleUse = true;
  }

  async #one(kind: string, request: InputRequest, options: InputOptions): Promise<unknown> {
    const key = options.key ?? `${kind}-${++this.#auto}`;
    const answers = await this.#broker.ask({ [key]: request }, this.signal);
    return answers[key];
  }
}
