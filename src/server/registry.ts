/**
 * Ordered registries for tools, prompts, resources and templates, shared by every request.
 *
 * Entries keep registration order, so lists are deterministic (the spec asks for a stable
 * order across calls). A registry notifies listeners when its membership changes, with the
 * entries that changed (old and new versions), which the server turns into `list_changed`
 * notifications for those who can see one of them. Changes made while the registry is held
 * ({@link Registry.hold}) are reported once, together, on release. Pagination uses opaque cursors.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/pagination
 * @module
 */
import { JsonRpcError } from '../jsonrpc/errors.js';

/** Something that can be listed: it has a unique key. */
export interface Keyed {
  readonly key: string;
}

/** A page of entries and the cursor of the next one. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor?: string;
}

/** An ordered, keyed collection with change notification and a cached snapshot. */
export class Registry<T extends Keyed> {
  readonly #entries = new Map<string, T>();
  readonly #listeners = new Set<(changed: readonly T[]) => void>();
  /** Changes made while held, reported on the last release. */
  #held: T[] | undefined;
  #holds = 0;
  readonly #kind: string;
  #snapshot: readonly T[] | undefined;
  /** Bumped on every change; cursors carry it so a changed list is detectable. */
  #version = 0;

  constructor(kind: string) {
    this.#kind = kind;
  }

  /** How many entries there are. */
  get size(): number {
    return this.#entries.size;
  }

  /** Adds or replaces an entry. Replacing keeps its position. */
  set(entry: T): void {
    const old = this.#entries.get(entry.key);
    this.#entries.set(entry.key, entry);
    this.#changed(old === undefined || old === entry ? [entry] : [old, entry]);
  }

  /** Adds an entry; throws when the key is taken. */
  add(entry: T): void {
    if (this.#entries.has(entry.key)) throw new Error(`${this.#kind} ${JSON.stringify(entry.key)} is already registered`);
    this.set(entry);
  }

  /** Removes an entry; returns whether it existed. */
  delete(key: string): boolean {
    const old = this.#entries.get(key);
    if (old === undefined) return false;
    this.#entries.delete(key);
    this.#changed([old]);
    return true;
  }

  /** The entry with this key. */
  get(key: string): T | undefined {
    return this.#entries.get(key);
  }

  /** All entries in registration order (a cached, frozen snapshot). */
  all(): readonly T[] {
    return (this.#snapshot ??= Object.freeze([...this.#entries.values()]));
  }

  /**
   * Calls `listener` after every membership change (or once per held batch) with the entries
   * that changed; returns an unsubscribe function.
   */
  onChange(listener: (changed: readonly T[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * One page of the entries that pass `visible`. The cursor is opaque to clients; an invalid
   * one is a -32602 error.
   */
  page(cursor: string | undefined, pageSize: number, visible?: (entry: T) => boolean): Page<T> {
    const all = visible === undefined ? this.all() : this.all().filter(visible);
    const start = cursor === undefined ? 0 : decodeCursor(cursor, this.#kind);
    if (start > all.length) throw JsonRpcError.invalidParams(`invalid cursor for ${this.#kind} list`, { cursor });
    if (start === 0 && all.length <= pageSize) return { items: all };
    const end = Math.min(start + pageSize, all.length);
    const items = all.slice(start, end);
    return end < all.length ? { items, nextCursor: encodeCursor(end, this.#version) } : { items };
  }

  /** Holds change reports until the matching {@link release}. Holds nest. */
  hold(): void {
    this.#holds++;
  }

  /** Ends a {@link hold}; the last release reports every held change at once. */
  release(): void {
    if (this.#holds === 0 || --this.#holds > 0) return;
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined) this.#report(held);
  }

  #changed(changed: T[]): void {
    this.#snapshot = undefined;
    this.#version++;
    if (this.#holds > 0) (this.#held ??= []).push(...changed);
    else this.#report(changed);
  }

  #report(changed: readonly T[]): void {
    for (const listener of this.#listeners) listener(changed);
  }
}

function encodeCursor(offset: number, version: number): string {
  return btoa(JSON.stringify({ o: offset, v: version })).replace(/=+$/, '');
}

function decodeCursor(cursor: string, kind: string): number {
  try {
    const parsed = JSON.parse(atob(cursor)) as unknown;
    if (typeof parsed === 'object' && parsed !== null) {
      const o = (parsed as Record<string, unknown>)['o'];
      if (typeof o === 'number' && Number.isSafeInteger(o) && o >= 0) return o;
    }
  } catch {
    // fall through
  }
  throw JsonRpcError.invalidParams(`invalid cursor for ${kind} list`, { cursor });
}
