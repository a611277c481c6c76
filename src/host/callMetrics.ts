/**
 * What the host records about each routed call (tools/call, prompts/get, resources/read,
 * completion/complete), whether it reached its server or not:
 *
 * - metrics through the OpenTelemetry metrics API: the counters `switchboard.host.calls` and
 *   `switchboard.host.errors` and the histogram `switchboard.host.call.duration` (seconds,
 *   interceptors and queueing included), with the attributes `switchboard.server.id`,
 *   `mcp.method.name`, `gen_ai.tool.name` / `gen_ai.prompt.name` (the server's own name) and,
 *   on errors, `error.type` (`ERR_MCP_DENIED`, a JSON-RPC code, `tool_error`, ...). The wire
 *   time of each downstream request is the client's `mcp.client.operation.duration`, with the
 *   same server id;
 * - structured log events: `call.denied` (warn) naming the interceptor, `call.failed` (debug).
 *
 * Without a registered meter provider nothing is measured and the call runs as is.
 *
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/
 * @module
 */
import { counter, durationHistogram, errorType, isToolError, operationAttributes, telemetryActive } from '../protocol/telemetry.js';
import { describeError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { DeniedError } from './interceptors.js';

/** The attribute naming the downstream server of a host call or client span. */
export const SERVER_ID_ATTRIBUTE = 'switchboard.server.id';

/** One routed call, as metrics and logs describe it. */
export interface RoutedCall {
  readonly method: string;
  readonly serverId: string;
  /** The server's own tool or prompt name (the URI of a read is not a metric dimension). */
  readonly target: string | undefined;
}

/** Runs `run` as one routed call: counted, timed, and logged when it is denied or fails. */
export function observeCall<R>(logger: Logger, call: RoutedCall, run: () => Promise<R>): Promise<R> {
  // Without telemetry: one rejection handler, and nothing else allocated per call.
  const calls = telemetryActive() ? counter('switchboard.host.calls', 'Calls the host routed to a server') : undefined;
  if (calls === undefined) return started(run).catch((error: unknown) => report(logger, call, error));
  const errors = counter('switchboard.host.errors', 'Routed calls that failed (denied, unavailable, an error response, a tool error)');
  const duration = durationHistogram('switchboard.host.call.duration', 'Duration of routed calls, interceptors and queueing included');
  const attributes = operationAttributes({ method: call.method, target: call.target, protocolVersion: undefined, attributes: { [SERVER_ID_ATTRIBUTE]: call.serverId } });
  const begun = performance.now();
  const done = (failure: string | undefined): void => {
    const measured = failure === undefined ? attributes : { ...attributes, 'error.type': failure };
    calls.add(1, measured);
    if (failure !== undefined) errors?.add(1, measured);
    duration?.record((performance.now() - begun) / 1000, measured);
  };
  return started(run).then(
    (value) => {
      done(isToolError(call.method, value) ? 'tool_error' : undefined);
      return value;
    },
    (error: unknown) => {
      done(errorType(error));
      return report(logger, call, error);
    },
  );
}

/** `run()`, with a synchronous throw (an interceptor that throws before its first `await`) as a rejection. */
function started<R>(run: () => Promise<R>): Promise<R> {
  try {
    return run();
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Logs a failed call, then rethrows its error. */
function report(logger: Logger, call: RoutedCall, error: unknown): never {
  logFailure(logger, call, error);
  throw error;
}

function logFailure(logger: Logger, call: RoutedCall, error: unknown): void {
  const fields = { server: call.serverId, method: call.method, ...(call.target !== undefined ? { target: call.target } : {}) };
  if (error instanceof DeniedError) logger.warn(`call denied by ${error.interceptor}`, { event: 'call.denied', ...fields, interceptor: error.interceptor, reason: error.reason });
  else logger.debug('call failed', { event: 'call.failed', ...fields, error: describeError(error) });
}
