/**
 * Revision-neutral building blocks shared by every MCP shape: `_meta`, ids, tokens, roles,
 * icons, `Implementation`, annotations, logging levels, base params and results, and the
 * 2026-07-28 caching fields.
 *
 * Neutral shapes are supersets: fields added by later revisions are optional here, and all
 * objects are open (unknown members pass through), as MCP requires.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic
 * @module
 */

import {
  array,
  enumeration,
  extend,
  integer,
  number,
  object,
  optional,
  record,
  string,
  union,
  unknown,
  type Infer,
  type Schema,
} from '../../util/schema.js';

/**
 * The kinds of item a server lists for the model: tools, prompts, resources and resource
 * templates (`tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`).
 * Visibility, pins, quarantine and the gateway's registrations are keyed by it.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server
 */
export type ItemKind = 'tool' | 'prompt' | 'resource' | 'template';

/** A `_meta` object: any keys (see `meta.ts` for the naming rules), any values. */
export const Meta = record(unknown());
/** @see {@link Meta} */
export type Meta = Infer<typeof Meta>;

/** A JSON object with arbitrary members. */
export const JsonObject = record(unknown());
/** @see {@link JsonObject} */
export type JsonObject = Infer<typeof JsonObject>;

/** A JSON-RPC request id: string or integer (never null). */
export const RequestId = union([string(), integer()]);
/** @see {@link RequestId} */
export type RequestId = Infer<typeof RequestId>;

/** A progress token: string or number, chosen by the requester. */
export const ProgressToken = union([string(), number()]);
/** @see {@link ProgressToken} */
export type ProgressToken = Infer<typeof ProgressToken>;

/** An opaque pagination cursor (the empty string is a valid cursor). */
export const Cursor = string();
/** @see {@link Cursor} */
export type Cursor = Infer<typeof Cursor>;

/** Speaker of a message or intended audience of content. */
export const Role = enumeration(['user', 'assistant']);
/** @see {@link Role} */
export type Role = Infer<typeof Role>;

/** RFC 5424 severities, lowest first. */
export const loggingLevels = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
/**
 * A log severity.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging
 */
export const LoggingLevel = enumeration(loggingLevels);
/** @see {@link LoggingLevel} */
export type LoggingLevel = Infer<typeof LoggingLevel>;

/**
 * An icon for an implementation, tool, prompt or resource (2025-11-25+). `src` is an `https:`
 * or `data:` URI; consumers must treat it as untrusted.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic#icons
 */
export const Icon = object({
  src: string({ minLength: 1 }),
  mimeType: optional(string()),
  sizes: optional(array(string())),
  theme: optional(enumeration(['light', 'dark'])),
});
/** @see {@link Icon} */
export type Icon = Infer<typeof Icon>;

/** Name of a client or server implementation (+`title` 06-18, +icons/description/websiteUrl 11-25). */
export const Implementation = object({
  name: string(),
  title: optional(string()),
  version: string(),
  description: optional(string()),
  websiteUrl: optional(string()),
  icons: optional(array(Icon)),
});
/** @see {@link Implementation} */
export type Implementation = Infer<typeof Implementation>;

/**
 * Hints for how a client uses or displays an object (`lastModified` from 2025-06-18).
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/resources#annotations
 */
export const Annotations = object({
  audience: optional(array(Role)),
  priority: optional(number({ minimum: 0, maximum: 1 })),
  lastModified: optional(string()),
});
/** @see {@link Annotations} */
export type Annotations = Infer<typeof Annotations>;

/** `cacheScope` of a cacheable result (2026-07-28). */
export const CacheScope = enumeration(['public', 'private']);
/** @see {@link CacheScope} */
export type CacheScope = Infer<typeof CacheScope>;

/** `ttlMs` of a cacheable result: a non-negative integer number of milliseconds. */
export const TtlMs = integer({ minimum: 0 });

/** The core `resultType` values (2026-07-28); extensions add more (`task`). */
export const coreResultTypes = ['complete', 'input_required'] as const;
/** A result's kind: `complete`, `input_required`, or an extension value. */
export type ResultType = (typeof coreResultTypes)[number] | (string & {});

/** Base request params: an optional `_meta` (required in 2026-07-28, see that revision). */
export const RequestParams = object({ _meta: optional(Meta) });
/** @see {@link RequestParams} */
export type RequestParams = Infer<typeof RequestParams>;

/** Base notification params. */
export const NotificationParams = object({ _meta: optional(Meta) });
/** @see {@link NotificationParams} */
export type NotificationParams = Infer<typeof NotificationParams>;

/**
 * Base result. `resultType` is optional in the neutral model; the 2026-07-28 codec stamps it.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic#result-types
 */
export const Result = object({ _meta: optional(Meta), resultType: optional(string()) });
/** @see {@link Result} */
export type Result = Infer<typeof Result>;

/** An empty result (`ping`, `logging/setLevel`, acknowledgements). */
export const EmptyResult = Result;
/** @see {@link EmptyResult} */
export type EmptyResult = Result;

/** The optional caching hints of a neutral cacheable result (required on the wire in 2026-07-28). */
export const cacheShape = { ttlMs: optional(TtlMs), cacheScope: optional(CacheScope) } as const;

/** A result that may carry caching hints. */
export const CacheableResult = extend(Result, cacheShape);
/** @see {@link CacheableResult} */
export type CacheableResult = Infer<typeof CacheableResult>;

/** Params of a paginated list request. */
export const PaginatedParams = extend(RequestParams, { cursor: optional(Cursor) });
/** @see {@link PaginatedParams} */
export type PaginatedParams = Infer<typeof PaginatedParams>;

/** The member every paginated result may carry. */
export const paginatedShape = { nextCursor: optional(Cursor) } as const;

/**
 * A union whose alternative is chosen by looking at the value (e.g. by `mode` or by which
 * member is present), so failures report the chosen alternative's precise issues instead of
 * "expected a | b". `pick` returns an index into `alternatives`.
 */
export function select<const S extends readonly Schema<unknown>[]>(
  alternatives: S,
  pick: (value: Readonly<Record<string, unknown>>) => number,
): Schema<Infer<S[number]>> {
  const fallback = alternatives[0];
  if (fallback === undefined) throw new TypeError('select needs at least one alternative');
  return {
    expected: alternatives.map((a) => a.expected).join(' | '),
    check(value, ctx) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return fallback.check(value, ctx);
      const chosen = alternatives[pick(value as Record<string, unknown>)] ?? fallback;
      return chosen.check(value, ctx);
    },
  };
}
