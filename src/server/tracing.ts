/**
 * OpenTelemetry spans for served requests, through `@opentelemetry/api`: a no-op (about
 * 50 ns a request) until the application registers a tracer provider. The W3C trace context
 * a client puts in `_meta` (`traceparent`, `tracestate`, `baggage`) becomes the parent of
 * the server span, through whatever propagator the application registered.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic#trace-context
 * @module
 */
import type * as OtelModule from '@opentelemetry/api';
import type { Span, TextMapGetter, Tracer } from '@opentelemetry/api';
import { JsonRpcError } from '../jsonrpc/errors.js';
import type { RequestId } from '../jsonrpc/messages.js';

type OtelApi = typeof OtelModule;

// The API module is loaded only once something is registered with it: importing it costs
// tens of milliseconds of start-up, which a stdio server pays on every launch.
let api: OtelApi | undefined;
let tracer: Tracer | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads `@opentelemetry/api` when an application has registered with it. {@link traced}
 * waits for it when a request arrives before the module is loaded; the server calls it when
 * it is constructed so that wait is rarely felt.
 */
export function preloadTracing(): Promise<void> {
  if (!tracingActive()) return Promise.resolve();
  return (loading ??= import('@opentelemetry/api').then(
    (m) => {
      api = m;
      tracer = m.trace.getTracer('switchboard');
    },
    () => undefined,
  ));
}

/**
 * Where `@opentelemetry/api` v1 keeps every registered global (tracer provider, context
 * manager, propagator, diag logger). While nothing was ever registered the API is a pure
 * no-op: a span would be non-recording, `context.with` would just call the function and no
 * propagator would read the trace context.
 */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

/**
 * True when an application registered something with the OpenTelemetry API. When false,
 * {@link traced} is exactly `fn()`, so the hot path skips building its span info.
 */
export function tracingActive(): boolean {
  const api = (globalThis as Record<symbol, unknown>)[OTEL_GLOBAL];
  return api !== undefined && api !== null;
}

const metaGetter: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/** What a span records about one request. */
export interface SpanInfo {
  readonly method: string;
  readonly requestId: RequestId;
  readonly protocolVersion: string;
  /** The tool, prompt or resource the request targets, if any. */
  readonly target: string | undefined;
  /** The request's `_meta` (trace context source). */
  readonly meta: Readonly<Record<string, unknown>>;
}

/** Runs `fn` inside a server span for the request; errors mark the span and are rethrown. */
export function traced<T>(info: SpanInfo, fn: () => Promise<T>): Promise<T> {
  if (!tracingActive()) return fn();
  // Registered, but the API module is still loading: wait for it (once) so no span is lost.
  if (api === undefined || tracer === undefined) return preloadTracing().then(() => (api === undefined ? fn() : traced(info, fn)));
  const { context, propagation, SpanKind, SpanStatusCode } = api;
  const parent = typeof info.meta['traceparent'] === 'string' ? propagation.extract(context.active(), info.meta, metaGetter) : context.active();
  const name = info.target === undefined ? info.method : `${info.method} ${info.target}`;
  return tracer.startActiveSpan(
    name,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'mcp.method.name': info.method,
        'mcp.protocol.version': info.protocolVersion,
        'jsonrpc.request.id': String(info.requestId),
        ...(info.target !== undefined && info.method === 'tools/call' ? { 'gen_ai.tool.name': info.target } : {}),
      },
    },
    parent,
    (span: Span) =>
      fn().then(
        (value) => {
          span.end();
          return value;
        },
        (error: unknown) => {
          if (error instanceof JsonRpcError) span.setAttribute('rpc.jsonrpc.error_code', error.code);
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : 'error' });
          span.end();
          throw error;
        },
      ),
  );
}
