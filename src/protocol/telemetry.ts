/**
 * OpenTelemetry for MCP operations, through `@opentelemetry/api`, in one place for the server
 * (a server span per request, parented on the trace context in `_meta`), the client (a client
 * span per request, its trace context injected into the outgoing `_meta`) and the host (call
 * counters), and the logger provider audit records are emitted to
 * ({@link registeredLoggerProvider}). Names follow the OpenTelemetry semantic conventions for MCP: spans named
 * `{mcp.method.name} {target}`, attributes `mcp.method.name`, `mcp.protocol.version`,
 * `jsonrpc.request.id`, `gen_ai.tool.name`, `gen_ai.prompt.name`, `mcp.resource.uri`,
 * `error.type`, `rpc.response.status_code`; histograms `mcp.client.operation.duration` and
 * `mcp.server.operation.duration` in seconds.
 *
 * Everything is a no-op until the application registers a tracer provider, meter provider or
 * propagator: {@link telemetryActive} is then false, callers skip building the operation's
 * description, and {@link observe} is exactly `fn()`. The API module itself is loaded only
 * once something is registered (importing it costs tens of milliseconds of start-up, which a
 * stdio server pays on every launch).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/
 * @module
 */
import type * as OtelModule from '@opentelemetry/api';
import type { LoggerProvider } from '@opentelemetry/api-logs';
import type { Attributes, Context, Counter, Histogram, Meter, MeterProvider, Span, TextMapGetter, TextMapSetter, Tracer } from '@opentelemetry/api';
import { JsonRpcError } from '../jsonrpc/errors.js';
import type { RequestId } from '../jsonrpc/messages.js';
import { McpError } from '../util/errors.js';

type OtelApi = typeof OtelModule;

/** The instrumentation scope of every span and instrument. */
const SCOPE = 'switchboard';

let api: OtelApi | undefined;
let tracer: Tracer | undefined;
let loading: Promise<void> | undefined;

/**
 * Where `@opentelemetry/api` v1 keeps every registered global (`trace`, `metrics`,
 * `propagation`, `context`, `diag`), each under its own key once registered.
 */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

function otelGlobals(): Record<string, unknown> | undefined {
  const globals = (globalThis as Record<symbol, Record<string, unknown> | null | undefined>)[OTEL_GLOBAL];
  return globals === null ? undefined : globals;
}

function registeredGlobal(kind: 'trace' | 'metrics' | 'propagation'): unknown {
  return otelGlobals()?.[kind];
}

/**
 * True when an application registered a tracer provider, a meter provider or a propagator
 * with the OpenTelemetry API. While false every function here is a no-op, so hot paths test
 * it first and skip building their {@link Operation}. One global lookup while nothing was
 * ever registered.
 */
export function telemetryActive(): boolean {
  const globals = otelGlobals();
  return globals !== undefined && (globals['trace'] !== undefined || globals['metrics'] !== undefined || globals['propagation'] !== undefined);
}

/** Where `@opentelemetry/api-logs` keeps the registered logger provider (a getter taking the API's compatibility version). */
const LOGS_GLOBAL = Symbol.for('io.opentelemetry.js.api.logs');

/** The logs API's compatibility version the getter is asked for (`API_BACKWARDS_COMPATIBILITY_VERSION`). */
const LOGS_API_VERSION = 1;

/**
 * The OpenTelemetry logger provider an application registered (`logs.setGlobalLoggerProvider`,
 * or an SDK's setup), or undefined when none is: one global lookup, and the logs API module is
 * never loaded (the provider is read from the global the API writes).
 */
export function registeredLoggerProvider(): LoggerProvider | undefined {
  const getter = (globalThis as Record<symbol, unknown>)[LOGS_GLOBAL];
  if (typeof getter !== 'function') return undefined;
  return (getter as (version: number) => LoggerProvider | undefined)(LOGS_API_VERSION);
}

/**
 * Loads `@opentelemetry/api` when an application has registered with it. {@link observe}
 * waits for it when an operation starts before the module is loaded; servers, clients and
 * hosts call it when constructed so that wait is rarely felt.
 */
export function preloadTelemetry(): Promise<void> {
  if (!telemetryActive()) return Promise.resolve();
  return (loading ??= import('@opentelemetry/api').then(
    (m) => {
      api = m;
      tracer = m.trace.getTracer(SCOPE);
    },
    () => undefined,
  ));
}

// ---- metrics --------------------------------------------------------------------------

/** The meter of the registered provider (the metrics API has no proxy: a meter taken before registration stays a no-op). */
let meterOf: { provider: unknown; meter: Meter; instruments: Map<string, Counter | Histogram> } | undefined;

/** Bucket boundaries (seconds) the MCP semantic conventions advise for operation durations. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

function instrument<T extends Counter | Histogram>(name: string, create: (meter: Meter) => T): T | undefined {
  const provider = registeredGlobal('metrics');
  if (provider === undefined) return undefined;
  if (meterOf?.provider !== provider) meterOf = { provider, meter: (provider as MeterProvider).getMeter(SCOPE), instruments: new Map() };
  let made = meterOf.instruments.get(name) as T | undefined;
  if (made === undefined) {
    made = create(meterOf.meter);
    meterOf.instruments.set(name, made);
  }
  return made;
}

/** A monotonic counter (`{call}`) of the registered meter provider, or undefined when none is. */
export function counter(name: string, description: string): Counter | undefined {
  return instrument(name, (meter) => meter.createCounter(name, { description, unit: '{call}' }));
}

/** A duration histogram (seconds, the semantic conventions' buckets), or undefined when no meter provider is registered. */
export function durationHistogram(name: string, description: string): Histogram | undefined {
  return instrument(name, (meter) => meter.createHistogram(name, { description, unit: 's', advice: { explicitBucketBoundaries: DURATION_BUCKETS } }));
}

// ---- operations -----------------------------------------------------------------------

/** One MCP request as telemetry describes it. */
export interface Operation {
  /** `client`: this side sent the request; `server`: this side serves it. */
  readonly side: 'client' | 'server';
  readonly method: string;
  readonly protocolVersion: string | undefined;
  /** `params.name` (tool, prompt) or `params.uri` (resource), if any. */
  readonly target: string | undefined;
  readonly requestId?: RequestId;
  /** Added to the span and the duration metric (the host adds `switchboard.server.id`). */
  readonly attributes?: Readonly<Record<string, string>>;
}

/** What {@link observe} gives the operation it wraps. */
export interface OperationScope {
  /** Client side: the trace context to merge into the outgoing request's `_meta` (undefined when there is none). */
  readonly traceMeta: Readonly<Record<string, string>> | undefined;
  /** Records the JSON-RPC id once the request has one. */
  requestId(id: RequestId): void;
}

const NO_SCOPE: OperationScope = Object.freeze({ traceMeta: undefined, requestId: () => undefined });

const metaGetter: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

const metaSetter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/**
 * The semantic-convention attributes of an operation that are safe as metric dimensions
 * (low cardinality: no request id, no resource URI).
 */
export function operationAttributes(op: Pick<Operation, 'method' | 'target' | 'protocolVersion' | 'attributes'>): Attributes {
  const attributes: Attributes = { 'mcp.method.name': op.method, ...op.attributes };
  if (op.protocolVersion !== undefined) attributes['mcp.protocol.version'] = op.protocolVersion;
  if (op.target !== undefined) {
    if (op.method === 'tools/call') {
      attributes['gen_ai.tool.name'] = op.target;
      attributes['gen_ai.operation.name'] = 'execute_tool';
    } else if (op.method === 'prompts/get') attributes['gen_ai.prompt.name'] = op.target;
  }
  return attributes;
}

/**
 * `error.type` of a failure: the JSON-RPC code of an error response, `tool_error` for a tool
 * result with `isError: true`, the code of a local `McpError`, else the error's name.
 */
export function errorType(error: unknown): string {
  if (error instanceof JsonRpcError) return String(error.code);
  if (error instanceof McpError) return error.code;
  if (error instanceof Error) return error.name;
  return '_OTHER';
}

/** True for a `tools/call` result that reports a tool error (`isError: true`). */
export function isToolError(method: string, value: unknown): boolean {
  return method === 'tools/call' && typeof value === 'object' && value !== null && (value as { isError?: unknown }).isError === true;
}

/**
 * Runs `fn` as one MCP operation: inside a span (client or server kind, the active span as
 * parent, or on the server side the trace context in `parentMeta`), timed into the
 * operation-duration histogram. A failure (a thrown error, or a tool result with
 * `isError: true`; `resultOf` finds the result in what `fn` resolves with) sets the span
 * status, `error.type` and `rpc.response.status_code`; a thrown error is rethrown as is.
 */
export function observe<T>(
  op: Operation,
  fn: (scope: OperationScope) => Promise<T>,
  parentMeta?: Readonly<Record<string, unknown>>,
  resultOf: (value: T) => unknown = (value) => value,
): Promise<T> {
  if (!telemetryActive()) return fn(NO_SCOPE);
  // Registered, but the API module is still loading: wait for it (once) so nothing is lost.
  if (api === undefined || tracer === undefined) return preloadTelemetry().then(() => (api === undefined ? fn(NO_SCOPE) : observe(op, fn, parentMeta, resultOf)));
  const { context, propagation, trace, SpanKind, SpanStatusCode } = api;
  const parent: Context =
    op.side === 'server' && parentMeta !== undefined && typeof parentMeta['traceparent'] === 'string'
      ? propagation.extract(context.active(), parentMeta, metaGetter)
      : context.active();
  const attributes = operationAttributes(op);
  const histogram =
    op.side === 'client'
      ? durationHistogram('mcp.client.operation.duration', 'Duration of MCP requests as the client observed them')
      : durationHistogram('mcp.server.operation.duration', 'Duration of MCP requests as the server observed them');
  const tracing = registeredGlobal('trace') !== undefined;
  const span: Span | undefined = tracing
    ? (tracer as Tracer).startSpan(
        spanName(op),
        {
          kind: op.side === 'client' ? SpanKind.CLIENT : SpanKind.SERVER,
          attributes: {
            ...attributes,
            ...(op.requestId !== undefined ? { 'jsonrpc.request.id': String(op.requestId) } : {}),
            ...(op.target !== undefined && op.method.startsWith('resources/') ? { 'mcp.resource.uri': op.target } : {}),
          },
        },
        parent,
      )
    : undefined;
  const active = span === undefined ? parent : trace.setSpan(parent, span);
  let traceMeta: Record<string, string> | undefined;
  if (op.side === 'client' && registeredGlobal('propagation') !== undefined) {
    const carrier: Record<string, string> = {};
    propagation.inject(active, carrier, metaSetter);
    if (Object.keys(carrier).length > 0) traceMeta = carrier;
  }
  const scope: OperationScope = span === undefined ? { traceMeta, requestId: () => undefined } : { traceMeta, requestId: (id) => span.setAttribute('jsonrpc.request.id', String(id)) };
  const started = histogram === undefined ? 0 : performance.now();
  const finish = (failure: string | undefined, error?: unknown): void => {
    if (span !== undefined) {
      if (failure !== undefined) {
        span.setAttribute('error.type', failure);
        if (error instanceof JsonRpcError) span.setAttribute('rpc.response.status_code', String(error.code));
        span.setStatus({ code: SpanStatusCode.ERROR, ...(error instanceof Error ? { message: error.message } : {}) });
      }
      span.end();
    }
    histogram?.record((performance.now() - started) / 1000, failure === undefined ? attributes : { ...attributes, 'error.type': failure });
  };
  return context.with(active, () => fn(scope)).then(
    (value) => {
      finish(isToolError(op.method, resultOf(value)) ? 'tool_error' : undefined);
      return value;
    },
    (error: unknown) => {
      finish(errorType(error), error);
      throw error;
    },
  );
}

/** `{mcp.method.name} {target}`, the target only when low-cardinality (a tool or prompt name, never a URI). */
function spanName(op: Operation): string {
  return op.target !== undefined && (op.method === 'tools/call' || op.method === 'prompts/get') ? `${op.method} ${op.target}` : op.method;
}
