/**
 * JSON-RPC 2.0: messages, the strict decoder, NDJSON framing, wire errors, and the
 * `Connection` that correlates requests, responses, cancellation and progress.
 *
 * @module
 */
export * from './messages.js';
export * from './errors.js';
export * from './decode.js';
export * from './channel.js';
export * from './ndjson.js';
export * from './connection.js';
