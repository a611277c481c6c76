/**
 * Client and server capabilities (a superset over all revisions).
 *
 * Stateful revisions exchange them once in `initialize`; 2026-07-28 sends client capabilities
 * on every request (`_meta["io.modelcontextprotocol/clientCapabilities"]`) and server
 * capabilities in `server/discover`.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#capability-negotiation
 * @module
 */

import { boolean, object, optional, record, refine, string, type Infer } from '../../util/schema.js';
import { isValidExtensionId } from '../meta.js';
import { JsonObject } from './common.js';

/** An extension identifier used as a map key (prefix mandatory). */
export const ExtensionId = refine(string(), isValidExtensionId, 'must be a valid extension identifier ("prefix/name")');

/** The `extensions` capability map: identifier → settings object (`{}` = supported). */
export const ExtensionsCapability = record(JsonObject, ExtensionId);
/** @see {@link ExtensionsCapability} */
export type ExtensionsCapability = Infer<typeof ExtensionsCapability>;

/** 2025-11-25 task capability of a client. */
export const ClientTasksCapability = object({
  list: optional(JsonObject),
  cancel: optional(JsonObject),
  requests: optional(
    object({
      sampling: optional(object({ createMessage: optional(JsonObject) })),
      elicitation: optional(object({ create: optional(JsonObject) })),
    }),
  ),
});

/** 2025-11-25 task capability of a server. */
export const ServerTasksCapability = object({
  list: optional(JsonObject),
  cancel: optional(JsonObject),
  requests: optional(object({ tools: optional(object({ call: optional(JsonObject) })) })),
});

/**
 * What a client supports. `roots.listChanged` and `tasks` are legacy-only; `extensions` is
 * 2026-07-28+; `elicitation.form`/`url` are 2025-11-25+ (`{}` means form only).
 */
export const ClientCapabilities = object({
  experimental: optional(record(JsonObject)),
  roots: optional(object({ listChanged: optional(boolean()) })),
  sampling: optional(object({ context: optional(JsonObject), tools: optional(JsonObject) })),
  elicitation: optional(object({ form: optional(JsonObject), url: optional(JsonObject) })),
  tasks: optional(ClientTasksCapability),
  extensions: optional(ExtensionsCapability),
});
/** @see {@link ClientCapabilities} */
export type ClientCapabilities = Infer<typeof ClientCapabilities>;

/** What a server supports. `tasks` is 2025-11-25 only; `extensions` is 2026-07-28+. */
export const ServerCapabilities = object({
  experimental: optional(record(JsonObject)),
  logging: optional(JsonObject),
  completions: optional(JsonObject),
  prompts: optional(object({ listChanged: optional(boolean()) })),
  resources: optional(object({ subscribe: optional(boolean()), listChanged: optional(boolean()) })),
  tools: optional(object({ listChanged: optional(boolean()) })),
  tasks: optional(ServerTasksCapability),
  extensions: optional(ExtensionsCapability),
});
/** @see {@link ServerCapabilities} */
export type ServerCapabilities = Infer<typeof ServerCapabilities>;

/**
 * True when `capabilities` declares the dotted capability `path` (e.g. `tools`,
 * `resources.subscribe`, `tasks.requests.tools.call`). A member counts as declared when it is
 * present and not `false`.
 */
export function hasCapability(capabilities: object | undefined, path: string): boolean {
  let node: unknown = capabilities;
  let start = 0;
  while (true) {
    if (typeof node !== 'object' || node === null) return false;
    const dot = path.indexOf('.', start);
    const key = dot < 0 ? path.slice(start) : path.slice(start, dot);
    node = (node as Record<string, unknown>)[key];
    if (node === undefined || node === false) return false;
    if (dot < 0) return true;
    start = dot + 1;
  }
}

/** True when `capabilities.extensions` declares the extension `id`. */
export function hasExtension(capabilities: { readonly extensions?: Readonly<Record<string, unknown>> } | undefined, id: string): boolean {
  const ext = capabilities?.extensions;
  return ext !== undefined && Object.hasOwn(ext, id) && typeof ext[id] === 'object' && ext[id] !== null;
}
