/**
 * OpenTelemetry spans for served requests, through `@opentelemetry/api`: a no-op (about
 * 50 ns a request) until the application registers a tracer provider. The W3C trace context
 * a client puts in `_meta` (`traceparent`, `tracestate`, `baggage`) becomes the parent of
 * the server span, through whatever propagator the application registered.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic#trace-context
 * @module
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span, type TextMapGetter } from '@opentelemetry/api';
import { JsonRpcError } from '../jsonrpc/errors.js';
import type { RequestId } from '../jsonrpc/messages.js';

const tracer = trace.getTracer('switchboard');

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
