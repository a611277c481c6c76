/**
 * Input brokers for handlers that run as tasks, so the same `ctx.elicit(...)` works there:
 *
 * - {@link TaskInputBroker} (tasks extension, 2026-07-28): a question parks the task in
 *   `input_required` with the question in `inputRequests` (what `tasks/get` shows); the
 *   client answers with `tasks/update`, which {@link TaskInputBroker.deliver} feeds back.
 *   Keys are unique over the task's lifetime: a handler key asked twice gets a new wire key.
 * - {@link SessionTaskBroker} (2025-11-25 core tasks): each question is a real request to the
 *   client on the session, tagged with `_meta["io.modelcontextprotocol/related-task"]`; the
 *   task shows `input_required` while it waits.
 *
 * @see https://modelcontextprotocol.io/extensions/tasks/overview
 * @module
 */
import { JsonRpcError } from '../../jsonrpc/errors.js';
import { missingRequiredClientCapability } from '../../protocol/errors.js';
import { META_RELATED_TASK } from '../../protocol/meta.js';
import type { ClientCapabilities } from '../../protocol/model/capabilities.js';
import { ElicitResult } from '../../protocol/model/elicitation.js';
import type { InputRequest } from '../../protocol/model/mrtr.js';
import { CreateMessageResult } from '../../protocol/model/sampling.js';
import { ListRootsResult } from '../../protocol/model/utilities.js';
import type { PeerRequester } from '../../transport/types.js';
import { formatIssues, validate, type Schema } from '../../util/schema.js';
import { missingCapabilityFor, type InputBroker } from '../context.js';

/** Publishes the outstanding questions of a task (empty: back to `working`). */
export type PublishInputs = (outstanding: Readonly<Record<string, InputRequest>>) => Promise<void>;

const answerSchemas: Readonly<Record<InputRequest['method'], Schema<unknown>>> = {
  'elicitation/create': ElicitResult,
  'sampling/createMessage': CreateMessageResult,
  'roots/list': ListRootsResult,
};

function requireCapabilities(requests: Readonly<Record<string, InputRequest>>, caps: ClientCapabilities): void {
  for (const request of Object.values(requests)) {
    const missing = missingCapabilityFor(request, caps);
    if (missing !== undefined) throw missingRequiredClientCapability(missing);
  }
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('aborted');
}

interface Pending {
  readonly request: InputRequest;
  readonly resolve: (answer: unknown) => void;
}

/** Tasks extension: questions surface on `tasks/get`, answers arrive through `tasks/update`. */
export class TaskInputBroker implements InputBroker {
  readonly #caps: ClientCapabilities;
  readonly #publish: PublishInputs;
  readonly #pending = new Map<string, Pending>();
  readonly #issued = new Set<string>();
  #chain: Promise<void> = Promise.resolve();

  constructor(caps: ClientCapabilities, publish: PublishInputs) {
    this.#caps = caps;
    this.#publish = publish;
  }

  /** The questions waiting for an answer, by wire key. */
  get outstanding(): Readonly<Record<string, InputRequest>> {
    const out: Record<string, InputRequest> = {};
    for (const [key, p] of this.#pending) out[key] = p.request;
    return out;
  }

  async ask(requests: Readonly<Record<string, InputRequest>>, signal: AbortSignal): Promise<Record<string, unknown>> {
    requireCapabilities(requests, this.#caps);
    if (signal.aborted) throw abortError(signal);
    const waits: Promise<readonly [string, unknown]>[] = [];
    const keys: string[] = [];
    for (const [key, request] of Object.entries(requests)) {
      const wire = this.#freshKey(key);
      keys.push(wire);
      waits.push(new Promise<unknown>((resolve) => this.#pending.set(wire, { request, resolve })).then((answer) => [key, answer] as const));
    }
    await this.#sync();
    const aborted = new Promise<never>((_, reject) => {
      signal.addEventListener('abort', () => reject(abortError(signal)), { once: true });
    });
    aborted.catch(() => undefined);
    try {
      return Object.fromEntries(await Promise.race([Promise.all(waits), aborted]));
    } finally {
      if (signal.aborted) for (const key of keys) this.#pending.delete(key);
    }
  }

  /**
   * Feeds `tasks/update` answers. Keys that are not outstanding are ignored; an answer of the
   * wrong shape is -32602 (nothing is applied then). Resolves once the task's visible state
   * reflects the answers (answered keys gone; `working` when none remain).
   */
  async deliver(responses: Readonly<Record<string, unknown>>): Promise<void> {
    const accepted: [Pending, unknown][] = [];
    for (const [key, answer] of Object.entries(responses)) {
      const pending = this.#pending.get(key);
      if (pending === undefined) continue;
      const checked = validate(answerSchemas[pending.request.method], answer, { path: ['params', 'inputResponses', key] });
      if (!checked.ok) throw JsonRpcError.invalidParams(formatIssues(checked.issues), { inputResponse: key });
      accepted.push([pending, answer]);
    }
    if (accepted.length === 0) return;
    for (const [key, pending] of [...this.#pending]) if (accepted.some(([p]) => p === pending)) this.#pending.delete(key);
    await this.#sync();
    for (const [pending, answer] of accepted) pending.resolve(answer);
  }

  #freshKey(key: string): string {
    let wire = key;
    for (let n = 2; this.#issued.has(wire); n++) wire = `${key}.${n}`;
    this.#issued.add(wire);
    return wire;
  }

  /** Publishes the current snapshot, in order with earlier publications. */
  #sync(): Promise<void> {
    const snapshot = this.outstanding;
    const next = this.#chain.then(() => this.#publish(snapshot));
    this.#chain = next.catch(() => undefined);
    return next;
  }
}

/** 2025-11-25 core tasks: questions are real requests to the client on the session. */
export class SessionTaskBroker implements InputBroker {
  readonly #peer: PeerRequester;
  readonly #caps: ClientCapabilities;
  readonly #taskId: string;
  readonly #publish: PublishInputs;
  readonly #waiting = new Map<string, InputRequest>();
  #seq = 0;

  constructor(peer: PeerRequester, caps: ClientCapabilities, taskId: string, publish: PublishInputs) {
    this.#peer = peer;
    this.#caps = caps;
    this.#taskId = taskId;
    this.#publish = publish;
  }

  async ask(requests: Readonly<Record<string, InputRequest>>, signal: AbortSignal): Promise<Record<string, unknown>> {
    requireCapabilities(requests, this.#caps);
    const local = Object.entries(requests).map(([key, request]) => [key, `${key}#${++this.#seq}`, request] as const);
    for (const [, wire, request] of local) this.#waiting.set(wire, request);
    await this.#publish(Object.fromEntries(this.#waiting));
    try {
      const answers = await Promise.all(
        local.map(async ([key, , request]) => {
          const params = { ...(request.params as Record<string, unknown> | undefined), _meta: { [META_RELATED_TASK]: { taskId: this.#taskId } } };
          const result = await this.#peer.request(request.method, params, { signal });
          const checked = validate(answerSchemas[request.method], result);
          if (!checked.ok) throw JsonRpcError.internal(`the client answered ${request.method} with an invalid result`);
          return [key, result] as const;
        }),
      );
      return Object.fromEntries(answers);
    } finally {
      for (const [, wire] of local) this.#waiting.delete(wire);
      if (!signal.aborted) await this.#publish(Object.fromEntries(this.#waiting));
    }
  }
}
