/**
 * `_meta` keys: the reserved keys MCP defines and the naming rules every key must follow.
 *
 * A key is an optional prefix (dot-separated labels followed by `/`) and a name. Prefixes whose
 * second label is `modelcontextprotocol` or `mcp` are reserved for MCP itself.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
 * @module
 */

import type { ProtocolRevision } from './revisions.js';

/** Request `_meta` (2026-07-28, required): the protocol revision of this request. */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
/** Request `_meta` (2026-07-28, required): the client capabilities for this request. */
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
/** Request `_meta` (2026-07-28, SHOULD): the client `Implementation`, for display only. */
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
/** Request `_meta` (2026-07-28, deprecated): minimum `LoggingLevel` for `notifications/message`. */
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
/** Result `_meta` (2026-07-28, SHOULD): the server `Implementation`. */
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
/** Listen-stream notification and listen result `_meta` (2026-07-28): the listen request id. */
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
/** Task-related message `_meta` (2025-11-25 tasks only): `{ taskId }`. */
export const META_RELATED_TASK = 'io.modelcontextprotocol/related-task';
/** Request `_meta` (all revisions): opts the request into progress notifications. */
export const META_PROGRESS_TOKEN = 'progressToken';
/** W3C Trace Context `traceparent` (2026-07-28, unprefixed exception). */
export const META_TRACEPARENT = 'traceparent';
/** W3C Trace Context `tracestate` (2026-07-28, unprefixed exception). */
export const META_TRACESTATE = 'tracestate';
/** W3C Baggage (2026-07-28, unprefixed exception). */
export const META_BAGGAGE = 'baggage';

/** The OpenTelemetry keys that are reserved although unprefixed. */
export const traceMetaKeys: readonly string[] = [META_TRACEPARENT, META_TRACESTATE, META_BAGGAGE];

/** The tasks extension identifier (2026-07-28). */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';

const LABEL = /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;
const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** A key split into its prefix labels (empty when unprefixed) and name. */
export interface MetaKeyParts {
  readonly labels: readonly string[];
  readonly name: string;
  readonly hasPrefix: boolean;
}

/** Splits a key at its last `/`. Labels are not validated here. */
export function parseMetaKey(key: string): MetaKeyParts {
  const slash = key.lastIndexOf('/');
  if (slash < 0) return { labels: [], name: key, hasPrefix: false };
  return { labels: key.slice(0, slash).split('.'), name: key.slice(slash + 1), hasPrefix: true };
}

/**
 * Lists every way `key` breaks the `_meta` naming rules (empty when valid).
 *
 * - prefix, if any: dot-separated labels then `/`; each label starts with a letter, ends with a
 *   letter or digit, and has only letters, digits and `-` inside;
 * - name: empty, or starts and ends alphanumeric with only `[A-Za-z0-9._-]` inside.
 *
 * A completely empty key (no prefix, no name) is rejected: it names nothing.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
 */
export function validateMetaKey(key: string): string[] {
  const problems: string[] = [];
  if (key.length === 0) return ['key is empty'];
  const { labels, name, hasPrefix } = parseMetaKey(key);
  if (hasPrefix) {
    if (labels.length === 1 && labels[0] === '') problems.push('prefix has no labels before "/"');
    else {
      for (const label of labels) {
        if (label === '') problems.push('prefix has an empty label');
        else if (!LABEL.test(label)) {
          problems.push(`prefix label "${label}" must start with a letter, end with a letter or digit, and contain only letters, digits and "-"`);
        }
      }
    }
  }
  if (name !== '' && !NAME.test(name)) {
    problems.push(`name "${name}" must start and end with a letter or digit and contain only letters, digits, ".", "_" and "-"`);
  }
  return problems;
}

/** True when `key` follows the `_meta` naming rules. */
export function isValidMetaKey(key: string): boolean {
  return validateMetaKey(key).length === 0;
}

const RESERVED_LABELS: ReadonlySet<string> = new Set(['modelcontextprotocol', 'mcp']);

/**
 * True when `key`'s prefix is reserved for MCP.
 *
 * From 2025-11-25 on, a prefix is reserved when its **second** label is `modelcontextprotocol`
 * or `mcp` (`io.modelcontextprotocol/`, `dev.mcp/`, but not `com.example.mcp/`). 2025-06-18
 * reserved any prefix with such a label followed by another label (`modelcontextprotocol.io/`);
 * pass that revision to apply the older rule. 2025-03-26 had no naming rules.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic#general-fields
 */
export function isReservedMetaKey(key: string, revision?: ProtocolRevision): boolean {
  const { labels, hasPrefix } = parseMetaKey(key);
  if (!hasPrefix) return false;
  if (revision === '2025-03-26') return false;
  if (revision === '2025-06-18') {
    for (let i = 0; i < labels.length - 1; i++) if (RESERVED_LABELS.has(labels[i] ?? '')) return true;
    return false;
  }
  return labels.length >= 2 && RESERVED_LABELS.has(labels[1] ?? '');
}

/**
 * Lists every way `id` breaks the extension-identifier rules (empty when valid): the `_meta`
 * key rules with a **mandatory** prefix and a non-empty name (`io.modelcontextprotocol/tasks`).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#extension-negotiation
 */
export function validateExtensionId(id: string): string[] {
  const problems = validateMetaKey(id);
  const { hasPrefix, name } = parseMetaKey(id);
  if (!hasPrefix) problems.push('extension identifier must have a prefix (e.g. "com.example/")');
  if (name === '') problems.push('extension identifier must have a name after the prefix');
  return problems;
}

/** True when `id` is a valid extension identifier. */
export function isValidExtensionId(id: string): boolean {
  return validateExtensionId(id).length === 0;
}
