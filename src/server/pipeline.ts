/**
 * The request pipeline's protocol steps: find a request's era and revision (once, here),
 * validate its params against that revision's schema, and stamp results for the wire.
 *
 * A request whose `_meta` names a protocol version is served statelessly (2026-07-28);
 * otherwise it belongs to its stateful session (after `initialize`). Everything later in the
 * pipeline reads the revision from the {@link Call} built here and never derives it again.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle
 * @module
 */
import { JsonRpcError } from '../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest, RequestId } from '../jsonrpc/messages.js';
import { decodeRequestParams, encodeResult } from '../protocol/codec.js';
import { invalidParamsFromIssues, unsupportedProtocolVersion } from '../protocol/errors.js';
import {
  META_BAGGAGE,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  META_TRACEPARENT,
  META_TRACESTATE,
  TASKS_EXTENSION_ID,
} from '../protocol/meta.js';
import type { ClientCapabilities } from '../protocol/model/capabilities.js';
import { loggingLevels, type Implementation, type LoggingLevel } from '../protocol/model/common.js';
import { isStateless, isSupportedRevision, latestStatefulRevision, type ProtocolRevision } from '../protocol/revisions.js';
import type { DispatchEnv, Principal, SessionPeer } from '../transport/types.js';
import { onAbortOf } from '../util/lazyAbort.js';
import { spreadCopy } from '../util/object.js';
import type { ServerCore } from './core.js';
import { ServerSession } from './session.js';
import type { TraceContext } from './types.js';

/** One request on its way through the pipeline. */
export interface Call {
  readonly id: RequestId;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly meta: Readonly<Record<string, unknown>>;
  /** The revision of this request, decided once by {@link prepare}. */
  readonly revision: ProtocolRevision;
  readonly caps: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  /** Who sent it (`DispatchEnv.principal`). */
  readonly principal: Principal | undefined;
  readonly logLevel: LoggingLevel | undefined;
  readonly env: DispatchEnv;
  /** The stateful session this request belongs to (legacy revisions only). */
  readonly session: ServerSession | undefined;
  /** Set once the request is answered: nothing more may be sent for it. */
  readonly life: { done: boolean };
}

/** Serves one prepared request. */
export type MethodHandler = (call: Call) => Promise<Record<string, unknown>>;

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});
const TASK_EXTENSIONS: ReadonlySet<string> = new Set([TASKS_EXTENSION_ID]);
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** A plain (non-array) object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The W3C trace context carried in `_meta`, if well-formed. */
export function readTrace(meta: Readonly<Record<string, unknown>>): TraceContext | undefined {
  const parent = meta[META_TRACEPARENT];
  if (typeof parent !== 'string' || !TRACEPARENT.test(parent)) return undefined;
  const state = meta[META_TRACESTATE];
  const baggage = meta[META_BAGGAGE];
  return {
    traceparent: parent,
    ...(typeof state === 'string' ? { tracestate: state } : {}),
    ...(typeof baggage === 'string' ? { baggage } : {}),
  };
}


/** Finds the revision of a request and validates it (see the module comment). */
export function prepare(core: ServerCore, request: JsonRpcRequest, env: DispatchEnv): Call {
  const params = request.params ?? EMPTY;
  const rawMeta = params['_meta'];
  const meta = isObject(rawMeta) ? rawMeta : EMPTY;
  const version = meta[META_PROTOCOL_VERSION];
  const session = env.session instanceof ServerSession ? env.session : undefined;
  // A session takes a request once it is initialized, or when the request is `initialize`;
  // anything else without a 2026 `_meta` version is answered as a stateless request would be.
  if (version === undefined && session !== undefined && core.statefulVersions.length > 0 && (session.revision !== undefined || request.method === 'initialize')) {
    return prepareStateful(core, request, params, meta, env, session);
  }
  if (version === undefined) {
    if (request.method === 'initialize') {
      const requested = params['protocolVersion'];
      throw unsupportedProtocolVersion(core.statelessVersions, typeof requested === 'string' ? requested : '');
    }
    throw invalidParamsFromIssues([{ path: ['params', '_meta', META_PROTOCOL_VERSION], message: 'is required' }]);
  }
  if (typeof version !== 'string' || !isSupportedRevision(version) || !core.statelessVersions.includes(version)) {
    throw unsupportedProtocolVersion(core.statelessVersions, typeof version === 'string' ? version : JSON.stringify(version));
  }
  const decoded = decodeRequestParams(version, request.method, params, {
    from: 'client',
    serverCapabilities: core.capabilities(),
    extensions: core.tasks !== undefined || core.forwardedTasks !== undefined ? TASK_EXTENSIONS : undefined, // tasks integration
  });
  if (!decoded.ok) throw decoded.error;
  const caps = meta[META_CLIENT_CAPABILITIES] as ClientCapabilities;
  const info = meta[META_CLIENT_INFO];
  const level = meta[META_LOG_LEVEL];
  if (level !== undefined && !(loggingLevels as readonly unknown[]).includes(level)) {
    throw invalidParamsFromIssues([{ path: ['params', '_meta', META_LOG_LEVEL], message: `must be one of ${loggingLevels.join(', ')}` }]);
  }
  return {
    id: request.id,
    method: request.method,
    params: decoded.value,
    meta,
    revision: version,
    caps,
    clientInfo: isObject(info) ? (info as Implementation) : undefined,
    principal: env.principal,
    logLevel: core.logging ? (level as LoggingLevel | undefined) : undefined,
    env,
    session: undefined,
    life: { done: false },
  };
}

function prepareStateful(
  core: ServerCore,
  request: JsonRpcRequest,
  params: Readonly<Record<string, unknown>>,
  meta: Readonly<Record<string, unknown>>,
  env: DispatchEnv,
  session: ServerSession,
): Call {
  let revision = session.revision;
  if (request.method === 'initialize') {
    if (revision !== undefined) throw JsonRpcError.invalidRequest('the session is already initialized');
    revision = negotiate(core, params['protocolVersion']);
  } else if (revision === undefined) {
    throw JsonRpcError.invalidRequest('the session is not initialized: send initialize first');
  }
  const decoded = decodeRequestParams(revision, request.method, params, {
    from: 'client',
    serverCapabilities: core.capabilities(),
    extensions: undefined,
  });
  if (!decoded.ok) throw decoded.error;
  return {
    id: request.id,
    method: request.method,
    params: decoded.value,
    meta,
    revision,
    caps: session.clientCapabilities,
    clientInfo: session.clientInfo,
    principal: env.principal,
    logLevel: core.logging ? (session.logLevel ?? 'debug') : undefined,
    env: env.peer === undefined ? withPeer(env, session.peer) : env,
    session,
    life: { done: false },
  };
}

/** The revision to answer `initialize` with: the requested one when served, else our latest stateful one. */
function negotiate(core: ServerCore, requested: unknown): ProtocolRevision {
  if (typeof requested === 'string' && isSupportedRevision(requested) && core.statefulVersions.includes(requested)) return requested;
  return core.statefulVersions.includes(latestStatefulRevision) ? latestStatefulRevision : (core.statefulVersions[core.statefulVersions.length - 1] as ProtocolRevision);
}

/** `env` with the session's `peer`. */
function withPeer(env: DispatchEnv, peer: SessionPeer): DispatchEnv {
  return new PeerEnv(env, peer);
}

/**
 * A {@link DispatchEnv} with another `peer`, reading the rest from the transport's env. Not a
 * copy of it: the transports' envs keep `signal` and `onAbort` on their prototypes (created
 * lazily), which a copy of own members would lose.
 */
class PeerEnv implements DispatchEnv {
  readonly #env: DispatchEnv;
  readonly peer: SessionPeer;
  /** Present only where the transport's env has it (stateful HTTP, SEP-1699 polling). */
  declare readonly closeStream?: () => void;

  constructor(env: DispatchEnv, peer: SessionPeer) {
    this.#env = env;
    this.peer = peer;
    const closeStream = env.closeStream;
    if (closeStream !== undefined) (this as { closeStream?: () => void }).closeStream = closeStream;
  }

  get signal(): AbortSignal {
    return this.#env.signal;
  }
  get extra(): DispatchEnv['extra'] {
    return this.#env.extra;
  }
  get principal(): DispatchEnv['principal'] {
    return this.#env.principal;
  }
  get session(): unknown {
    return this.#env.session;
  }
  onAbort(listener: () => void): () => void {
    return onAbortOf(this.#env, listener);
  }
  notify(notification: JsonRpcNotification): void {
    this.#env.notify(notification);
  }
}

/**
 * Stamps the result for the wire: resultType, cache defaults, serverInfo. The
 * `io.modelcontextprotocol/serverInfo` key of `_meta` is this server's alone: on 2026-07-28 it
 * is set to this server's info, on older revisions one a handler passed on (a gateway relaying
 * a downstream's result) is dropped, so a client never learns who is behind a gateway from it.
 */
export function stamp(core: ServerCore, call: Call, result: Record<string, unknown>): Record<string, unknown> {
  const out = encodeResult(call.revision, call.method, result);
  const meta = out['_meta'];
  const stateless = isStateless(call.revision);
  if (!stateless && !(isObject(meta) && Object.hasOwn(meta, META_SERVER_INFO))) return out;
  // spreadCopy, not `{ ...x }`: members are added to the copies (util/object.ts).
  const target = out === result ? spreadCopy(out) : out;
  const stamped: Record<string, unknown> = isObject(meta) ? spreadCopy(meta) : {};
  if (stateless) stamped[META_SERVER_INFO] = core.info;
  else delete stamped[META_SERVER_INFO];
  if (Object.keys(stamped).length > 0) target['_meta'] = stamped;
  else delete target['_meta'];
  return target;
}
