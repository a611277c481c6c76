/**
 * Combines the tool and prompt names of several servers into one namespace.
 *
 * - `always`: every name becomes `<serverId><separator><name>` (`fs__read_file`).
 * - `on-collision`: the first server to expose a name keeps it bare; a later server with the
 *   same name gets the prefixed form. Which server owns which name is persisted through a
 *   {@link NameAssignmentStore}, so a restart (servers connecting in another order) or a newly
 *   added server never renames a name that was already exposed.
 * - `never`: names stay bare; a second server with the same name is refused with
 *   {@link NamespaceCollisionError} naming both servers.
 *
 * In every mode a name that breaks the exposed-name rules is mapped deterministically (see
 * `nameRules.ts`), and when the chosen name is already held by another (server, name) — e.g.
 * `a__b` + `c` against `a` + `b__c`, or a name crafted to look like another server's — the
 * newcomer gets a hash-suffixed form instead: no server can take over a name another holds.
 *
 * Impersonation: a server's name that could be read as another server's namespaced name —
 * one holding the separator (`real__create_issue` from server `evil`, separator `__`; for a
 * separator of two or more characters), or one starting with another configured server's id
 * and the separator (`real_create_issue` with separator `_`; case and `-`/`_` folded) — is
 * renamed, in every mode, to the server's own prefixed form with the separator inside the
 * name collapsed to its first character: `evil__real_create_issue`. Renamed rather than
 * refused: the tool stays usable, and the exposed name now says whose it is (the first
 * separator is always the owner's). A saved assignment of such a name in another form is not
 * reused. (Look-alikes that use no separator are the scanner's: `shadowing/*`.)
 *
 * Lookups ({@link Namespacer.resolve}) are synchronous map reads. Persisting is asynchronous:
 * `assign` schedules a save and {@link Namespacer.flush} waits for it (and reports its error).
 *
 * @module
 */
import { McpError, McpErrorCode } from '../util/errors.js';
import type { NamespacingMode } from './configTypes.js';
import { exposedName } from './nameRules.js';

/** What is being named. */
export type NameKind = 'tool' | 'prompt';

/** The persisted name ownership: per kind, exposed name → `[serverId, original name]`. JSON-serialisable. */
export interface NameAssignments {
  readonly version: 1;
  /** The mode and separator the names were made with; a record made with others is discarded. */
  readonly mode: NamespacingMode;
  readonly separator: string;
  readonly tool: Readonly<Record<string, readonly [string, string]>>;
  readonly prompt: Readonly<Record<string, readonly [string, string]>>;
}

/** Where name assignments persist (implemented in `store/`; in memory by `MemoryNameAssignmentStore`). */
export interface NameAssignmentStore {
  /** The saved record, or `undefined` when nothing was saved yet. */
  load(): Promise<unknown>;
  /** Replaces the saved record. */
  save(record: NameAssignments): Promise<void>;
}

/** Two servers expose the same name and the mode (`never`) does not allow renaming. */
export class NamespaceCollisionError extends McpError {
  readonly kind: NameKind | 'resource' | 'resource template';
  readonly exposed: string;
  /** The server that holds the name. */
  readonly holder: string;
  /** The server that asked for it. */
  readonly claimant: string;

  constructor(kind: NameKind | 'resource' | 'resource template', exposed: string, holder: string, claimant: string) {
    super(
      McpErrorCode.NameCollision,
      `${kind} name "${exposed}" is exposed by both server "${holder}" and server "${claimant}"; namespacing "never" cannot tell them apart (use "on-collision" or "always", or filter one of them out)`,
    );
    this.kind = kind;
    this.exposed = exposed;
    this.holder = holder;
    this.claimant = claimant;
  }
}

/** Options of {@link Namespacer}. */
export interface NamespacerOptions {
  readonly mode: NamespacingMode;
  /** Between server id and name. Default `__`. */
  readonly separator?: string;
  /** Persists ownership (used by `on-collision` and `always`). */
  readonly store?: NameAssignmentStore;
  /** Called with a failed background save that nobody awaited through `flush`. */
  readonly onSaveError?: (error: unknown) => void;
  /** The configured server ids (a name starting with another one's prefix is renamed; see the module comment). Default: the servers that assigned names. */
  readonly serverIds?: () => Iterable<string>;
}

/** Where an exposed name comes from. */
export interface NameOwner {
  readonly serverId: string;
  readonly name: string;
}

interface KindState {
  /** exposed → owner, for names some live server exposes now. */
  readonly live: Map<string, NameOwner>;
  /** serverId → (original → exposed) of live names. */
  readonly byServer: Map<string, Map<string, string>>;
  /** exposed → owner, persisted reservations (live or not). */
  readonly reserved: Map<string, NameOwner>;
  /** `${serverId}\0${name}` → exposed, the inverse of `reserved`. */
  readonly reservedByOwner: Map<string, string>;
}

const ownerKey = (serverId: string, name: string): string => `${serverId}\0${name}`;

/** Assigns and resolves exposed names. Create with {@link Namespacer.open} to load persisted names. */
export class Namespacer {
  readonly mode: NamespacingMode;
  readonly separator: string;
  readonly #store: NameAssignmentStore | undefined;
  readonly #onSaveError: (error: unknown) => void;
  readonly #serverIds: () => Iterable<string>;
  readonly #kinds: Record<NameKind, KindState> = { tool: newKindState(), prompt: newKindState() };
  #saving: Promise<void> = Promise.resolve();
  #saveError: unknown = undefined;

  constructor(options: NamespacerOptions) {
    this.mode = options.mode;
    this.separator = options.separator ?? '__';
    this.#store = options.mode === 'never' ? undefined : options.store;
    this.#onSaveError = options.onSaveError ?? (() => undefined);
    this.#serverIds = options.serverIds ?? (() => Object.values(this.#kinds).flatMap((k) => [...k.byServer.keys()]));
  }

  /**
   * A namespacer with the assignments saved in `options.store` loaded. A record made with
   * another mode or separator is discarded (changing those is an explicit rename). Rejects with
   * `ERR_MCP_STORE_CORRUPT` when the saved record is not a name-assignment record.
   */
  static async open(options: NamespacerOptions): Promise<Namespacer> {
    const namespacer = new Namespacer(options);
    const saved = options.store === undefined || options.mode === 'never' ? undefined : await options.store.load();
    if (saved !== undefined) namespacer.#restore(checkAssignments(saved));
    return namespacer;
  }

  /**
   * Sets the names `serverId` exposes for `kind` (its whole current list; names it no longer
   * lists stop resolving) and returns original → exposed. Atomic: on
   * {@link NamespaceCollisionError} (mode `never`) nothing changes.
   */
  assign(kind: NameKind, serverId: string, names: readonly string[]): ReadonlyMap<string, string> {
    const state = this.#kinds[kind];
    const claimed = new Map<string, string>();
    const holderOf = (exposed: string, name: string): NameOwner | undefined => {
      const live = state.live.get(exposed);
      if (live !== undefined && live.serverId !== serverId) return live;
      const reserved = state.reserved.get(exposed);
      if (reserved !== undefined && (reserved.serverId !== serverId || reserved.name !== name)) return reserved;
      const mine = claimed.get(exposed);
      return mine === undefined || mine === name ? undefined : { serverId, name: mine };
    };
    const result = new Map<string, string>();
    const others = this.#otherPrefixes(serverId);
    let changed = false;
    for (const name of names) {
      if (result.has(name)) continue;
      const known = state.reservedByOwner.get(ownerKey(serverId, name));
      const impostor = this.#impersonates(name, others);
      const reusable = known !== undefined && holderOf(known, name) === undefined && (!impostor || this.#isOwnForm(serverId, known));
      const exposed = reusable ? known : this.#choose(kind, serverId, name, (candidate) => holderOf(candidate, name), impostor);
      if (exposed !== known) changed = true;
      result.set(name, exposed);
      claimed.set(exposed, name);
    }
    this.#dropLive(state, serverId);
    for (const [name, exposed] of result) {
      state.live.set(exposed, { serverId, name });
      if (this.#store !== undefined && state.reservedByOwner.get(ownerKey(serverId, name)) !== exposed) reserve(state, exposed, { serverId, name });
    }
    state.byServer.set(serverId, result);
    if (changed) this.#scheduleSave();
    return result;
  }

  /** The server and original name behind an exposed name a live server offers, or `undefined`. */
  resolve(kind: NameKind, exposed: string): NameOwner | undefined {
    return this.#kinds[kind].live.get(exposed);
  }

  /** The exposed name of `serverId`'s `name`, if it is live. */
  exposedNameOf(kind: NameKind, serverId: string, name: string): string | undefined {
    return this.#kinds[kind].byServer.get(serverId)?.get(name);
  }

  /** Drops `serverId`'s live names (it disconnected). Its persisted reservations stay, so it gets the same names back. */
  release(serverId: string): void {
    for (const state of Object.values(this.#kinds)) this.#dropLive(state, serverId);
  }

  /** Drops `serverId` entirely, reservations included (it was removed from the config), and saves. */
  forget(serverId: string): void {
    this.release(serverId);
    let changed = false;
    for (const state of Object.values(this.#kinds)) {
      for (const [exposed, owner] of state.reserved) {
        if (owner.serverId !== serverId) continue;
        state.reserved.delete(exposed);
        state.reservedByOwner.delete(ownerKey(owner.serverId, owner.name));
        changed = true;
      }
    }
    if (changed) this.#scheduleSave();
  }

  /** The record `store.save` receives. */
  snapshot(): NameAssignments {
    const dump = (state: KindState): Record<string, readonly [string, string]> => {
      const out: Record<string, readonly [string, string]> = {};
      for (const exposed of [...state.reserved.keys()].sort()) {
        const owner = state.reserved.get(exposed) as NameOwner;
        out[exposed] = [owner.serverId, owner.name];
      }
      return out;
    };
    return { version: 1, mode: this.mode, separator: this.separator, tool: dump(this.#kinds.tool), prompt: dump(this.#kinds.prompt) };
  }

  /** Waits for scheduled saves; rejects with the error of a failed one (then clears it). */
  async flush(): Promise<void> {
    await this.#saving;
    const error = this.#saveError;
    this.#saveError = undefined;
    if (error !== undefined) throw error;
  }

  /** The other configured servers' prefixes (`<id><separator>`), folded ({@link foldName}). */
  #otherPrefixes(serverId: string): string[] {
    const out = new Set<string>();
    for (const id of this.#serverIds()) if (id !== serverId) out.add(foldName(`${id}${this.separator}`));
    return [...out];
  }

  /** True when `name` could be read as another server's namespaced name (see the module comment). */
  #impersonates(name: string, otherPrefixes: readonly string[]): boolean {
    // The name as exposed may differ (characters outside the name rules become `_`): judge both.
    for (const form of new Set([name, name.replace(/[^A-Za-z0-9_.\-/]/gu, '_')])) {
      if (this.separator.length >= 2 && form.includes(this.separator)) return true;
      const folded = foldName(form);
      if (otherPrefixes.some((p) => folded.startsWith(p))) return true;
    }
    return false;
  }

  /** True when `exposed` is `serverId`'s prefixed form with no separator after the prefix (what an impersonating name is renamed to). */
  #isOwnForm(serverId: string, exposed: string): boolean {
    const prefix = `${serverId}${this.separator}`;
    return exposed.startsWith(prefix) && (this.separator.length < 2 || !exposed.slice(prefix.length).includes(this.separator));
  }

  /** `name` with every separator in it collapsed to the separator's first character (`real__x` → `real_x`). */
  #defused(name: string): string {
    if (this.separator.length < 2) return name;
    let out = name;
    while (out.includes(this.separator)) out = out.replaceAll(this.separator, this.separator[0] as string);
    return out;
  }

  #choose(kind: NameKind, serverId: string, name: string, holderOf: (exposed: string) => NameOwner | undefined, impostor: boolean): string {
    const prefix = `${serverId}${this.separator}`;
    if (impostor) {
      // Always the owner's prefix, the separator defused; the hash keeps the original apart from a look-alike.
      const base = this.#defused(name);
      const forms = [exposedName(serverId, prefix, base), exposedName(serverId, prefix, name, 8), exposedName(serverId, prefix, name, 16)].map((f) => (f.startsWith(prefix) ? prefix + this.#defused(f.slice(prefix.length)) : f));
      const free = forms.find((f) => holderOf(f) === undefined);
      if (free !== undefined) return free;
      const holder = holderOf(forms[0] as string) as NameOwner;
      throw new NamespaceCollisionError(kind, forms[0] as string, holder.serverId, serverId);
    }
    let first: string;
    if (this.mode === 'always') first = exposedName(serverId, prefix, name);
    else {
      first = exposedName(serverId, '', name);
      const holder = holderOf(first);
      if (holder !== undefined && this.mode === 'never') throw new NamespaceCollisionError(kind, first, holder.serverId, serverId);
      if (holder !== undefined) first = exposedName(serverId, prefix, name);
    }
    for (const candidate of [first, exposedName(serverId, prefix, name, 8), exposedName(serverId, prefix, name, 16)]) {
      if (holderOf(candidate) === undefined) return candidate;
    }
    const holder = holderOf(first) as NameOwner;
    throw new NamespaceCollisionError(kind, first, holder.serverId, serverId);
  }

  #dropLive(state: KindState, serverId: string): void {
    const names = state.byServer.get(serverId);
    if (names === undefined) return;
    for (const exposed of names.values()) state.live.delete(exposed);
    state.byServer.delete(serverId);
  }

  #restore(saved: NameAssignments): void {
    if (saved.mode !== this.mode || saved.separator !== this.separator) return;
    for (const kind of ['tool', 'prompt'] as const) {
      for (const [exposed, [serverId, name]] of Object.entries(saved[kind])) reserve(this.#kinds[kind], exposed, { serverId, name });
    }
  }

  #scheduleSave(): void {
    const store = this.#store;
    if (store === undefined) return;
    this.#saving = this.#saving.then(async () => {
      try {
        await store.save(this.snapshot());
      } catch (error) {
        this.#saveError = error;
        this.#onSaveError(error);
      }
    });
  }
}

/** A name compared for impersonation: lower case, `-` as `_`. */
function foldName(name: string): string {
  return name.toLowerCase().replaceAll('-', '_');
}

function newKindState(): KindState {
  return { live: new Map(), byServer: new Map(), reserved: new Map(), reservedByOwner: new Map() };
}

function reserve(state: KindState, exposed: string, owner: NameOwner): void {
  const key = ownerKey(owner.serverId, owner.name);
  const old = state.reservedByOwner.get(key);
  if (old !== undefined) state.reserved.delete(old);
  state.reserved.set(exposed, owner);
  state.reservedByOwner.set(ownerKey(owner.serverId, owner.name), exposed);
}

/** Checks a loaded record's shape; throws `ERR_MCP_STORE_CORRUPT`. */
export function checkAssignments(value: unknown): NameAssignments {
  const fail = (detail: string): never => {
    throw new McpError(McpErrorCode.StoreCorrupt, `saved name assignments are not valid: ${detail}`, { cause: value });
  };
  if (typeof value !== 'object' || value === null) return fail('not an object');
  const record = value as Record<string, unknown>;
  if (record['version'] !== 1) fail('unknown version');
  if (record['mode'] !== 'always' && record['mode'] !== 'on-collision' && record['mode'] !== 'never') fail('bad mode');
  if (typeof record['separator'] !== 'string') fail('bad separator');
  for (const kind of ['tool', 'prompt']) {
    const names = record[kind];
    if (typeof names !== 'object' || names === null || Array.isArray(names)) fail(`${kind} is not an object`);
    const owners = new Set<string>();
    for (const [exposed, owner] of Object.entries(names as object)) {
      if (!Array.isArray(owner) || owner.length !== 2 || typeof owner[0] !== 'string' || typeof owner[1] !== 'string') fail(`${kind} "${exposed}" is not [serverId, name]`);
      const key = ownerKey(owner[0] as string, owner[1] as string);
      if (owners.has(key)) fail(`${kind} "${exposed}" repeats an owner`);
      owners.add(key);
    }
  }
  return value as NameAssignments;
}
