/**
 * Utilities with no project imports: the schema combinators, local errors, logging.
 *
 * @module
 */
export * as schema from './schema.js';
export type { Schema, Infer, Issue, ObjectSchema, OptionalSchema, ValidationResult } from './schema.js';
export { McpError, McpErrorCode, isMcpError } from './errors.js';
export { sha256, sha256Hex } from './sha256.js';
export { type Logger, type LogLevel, type LogFormat, silentLogger, consoleErrorLogger, createLineLogger, formatLogLine } from './logger.js';
export { canonicalize } from './canonicalJson.js';
export { SWITCHBOARD_VERSION } from './version.js';
export { LazyAbort, type AbortLike, abortReasonOf, signalOf, listenAbort } from './lazyAbort.js';
