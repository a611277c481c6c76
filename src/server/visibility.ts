/**
 * Per-principal views of one server: the `visibility` option decides, for each request (and
 * each stateful session or listen stream), which tools, prompts, resources and templates
 * exist for it. An invisible entry is unknown everywhere: left out of list pages (filtered
 * before paging, so pages stay full), answered -32602 exactly as a missing one on
 * call/get/read/complete, absent for `toolHeaders()` (the HTTP `Mcp-Name` / `x-mcp-header`
 * checks), and a change to it sends no `list_changed` to those who cannot see it.
 *
 * @module
 */
import type { ItemKind } from '../protocol/model/common.js';
import type { ProtocolRevision } from '../protocol/revisions.js';
import type { Principal } from '../transport/types.js';
import type { Logger } from '../util/logger.js';
import type { ServerSession } from './session.js';

/** One entry as the `visibility` hook sees it. */
export interface VisibleEntry {
  readonly kind: ItemKind;
  /** The tool or prompt name, the resource URI or the template's `uriTemplate`. */
  readonly key: string;
  /** The wire form, as `tools/list` (etc.) would send it. */
  readonly definition: Readonly<Record<string, unknown>>;
}

/** Who is looking. */
export interface VisibilityContext {
  /** The request's (or the session's, or the listen stream's) principal. */
  readonly principal: Principal | undefined;
  /** The stateful session (revisions up to 2025-11-25); undefined on 2026-07-28. */
  readonly session: ServerSession | undefined;
  /** The protocol revision of the request or session. */
  readonly revision: ProtocolRevision;
}

/**
 * Decides whether `entry` exists for the viewer. Must be synchronous and cheap (it runs for
 * every entry of every list); a throw counts as "invisible" (fail closed) and is logged.
 */
export type Visibility = (entry: VisibleEntry, context: VisibilityContext) => boolean;

/** A registry entry visibility is decided on. */
export interface Listed {
  readonly key: string;
  readonly wire: Readonly<Record<string, unknown>>;
  readonly disabled: boolean;
}

/** Applies a {@link Visibility} hook (or none: everything enabled is visible). */
export class Views {
  readonly #hook: Visibility | undefined;
  readonly #logger: Logger;

  constructor(hook: Visibility | undefined, logger: Logger) {
    this.#hook = hook;
    this.#logger = logger;
  }

  /** Whether the hook lets `view` see `entry` (ignoring `disabled`; for change notifications). */
  allowed(kind: ItemKind, entry: Listed, view: VisibilityContext): boolean {
    if (this.#hook === undefined) return true;
    try {
      return this.#hook({ kind, key: entry.key, definition: entry.wire }, view) === true;
    } catch (error) {
      this.#logger.warn('the visibility hook threw; the entry is hidden', { kind, key: entry.key, error: String(error) });
      return false;
    }
  }

  /** Whether `entry` is enabled and visible to `view`. */
  sees(kind: ItemKind, entry: Listed | undefined, view: VisibilityContext): boolean {
    return entry !== undefined && !entry.disabled && this.allowed(kind, entry, view);
  }

  /** Whether any of `changed` is (or was) visible to `view`. */
  anyAllowed(kind: ItemKind, changed: readonly Listed[], view: VisibilityContext): boolean {
    return this.#hook === undefined || changed.some((entry) => this.allowed(kind, entry, view));
  }
}
