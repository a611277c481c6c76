/**
 * The shape of one entry of a revision's method registry, and the helper that builds a
 * registry. Kept apart from `methods.ts` so revision folders can build their registries
 * without importing it.
 *
 * @module
 */

import type { Schema } from '../util/schema.js';

/** Who may send a method. */
export type MethodDirection = 'clientToServer' | 'serverToClient' | 'both';

/** What one method is in one revision. */
export interface MethodSpec {
  /** The wire name, e.g. `tools/call`. */
  readonly method: string;
  /** Request (has a result) or notification. */
  readonly kind: 'request' | 'notification';
  /** Who sends it. */
  readonly direction: MethodDirection;
  /** Schema of `params` (an absent `params` is checked as `{}`). */
  readonly params: Schema<unknown>;
  /** Schema of the final (`complete`) result; requests only. */
  readonly result?: Schema<unknown>;
  /** Dotted server capability the method needs when sent to a server (e.g. `tools`, `resources.subscribe`). */
  readonly serverCapability?: string;
  /** Dotted client capability the method needs when sent to a client (legacy server-to-client requests). */
  readonly clientCapability?: string;
  /** 2026-07-28: may answer with an `InputRequiredResult` (MRTR). */
  readonly mrtr?: boolean;
  /** 2026-07-28: complete results carry required `ttlMs` and `cacheScope`. */
  readonly cacheable?: boolean;
  /** 2026-07-28 HTTP: the params member mirrored in the `Mcp-Name` header. */
  readonly mcpNameParam?: 'name' | 'uri' | 'taskId';
  /** Takes `cursor` and returns `nextCursor`. */
  readonly paginated?: boolean;
  /** The method belongs to this extension (2026-07-28), not to the core protocol. */
  readonly extension?: string;
  /** 2026-07-28 tasks extension: the server may answer with `resultType: "task"`. */
  readonly taskAugmentable?: boolean;
}

/** A revision's registry: wire name → spec. */
export type MethodRegistry = ReadonlyMap<string, MethodSpec>;

/** Builds a registry, rejecting duplicate method names (a programming error). */
export function buildRegistry(...groups: ReadonlyArray<readonly MethodSpec[]>): MethodRegistry {
  const map = new Map<string, MethodSpec>();
  for (const group of groups) {
    for (const spec of group) {
      if (map.has(spec.method)) throw new Error(`duplicate method in registry: ${spec.method}`);
      map.set(spec.method, Object.freeze(spec));
    }
  }
  return map;
}

type Extras = Omit<MethodSpec, 'method' | 'kind' | 'direction' | 'params' | 'result'>;

/** Shorthand for a request entry. */
export function requestSpec(
  method: string,
  direction: MethodDirection,
  params: Schema<unknown>,
  result: Schema<unknown>,
  extras: Extras = {},
): MethodSpec {
  return { method, kind: 'request', direction, params, result, ...extras };
}

/** Shorthand for a notification entry. */
export function notificationSpec(method: string, direction: MethodDirection, params: Schema<unknown>, extras: Extras = {}): MethodSpec {
  return { method, kind: 'notification', direction, params, ...extras };
}
