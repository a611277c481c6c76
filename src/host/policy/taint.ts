/**
 * Taint: what has entered a session (the labels of the items it used, with which server, tool
 * and time), and fingerprints of secret values that came out of a server's results.
 *
 * **What a session is.** Taint is kept under keys (see {@link taintKeys}):
 * - on the stateful era (2025-11-25) the upstream session (`session:<id>`);
 * - on 2026-07-28, which has no protocol session, the principal plus the conversation id the
 *   client may carry in `_meta["io.switchboard/conversation"]` (`conversation:<principal>/<id>`);
 * - and always the principal (`principal:<id>`, or `principal:anonymous` for unauthenticated
 *   callers, who all share one), for a window after its last taint.
 *
 * Decisions join every key of the request. So an agent steered by injected text cannot shed
 * its taint by starting a new conversation id, dropping it, or reconnecting (a new session):
 * the principal's taint stays for the window, and eviction when the store is full drops the
 * least recently used key, which never shortens the principal's window unless the number of
 * distinct principals exceeds the cap. Only a quiet window (no new taint) clears it.
 *
 * The store is behind {@link TaintStore}; {@link MemoryTaintStore} keeps it in this process's
 * memory, bounded. A store shared by several gateway instances (the store layer's Redis one)
 * answers with promises: the engine awaits them, and refuses the call when one rejects (fail
 * closed: taint that cannot be read or recorded is never taken as no taint).
 *
 * @module
 */
import { RecencyMap } from '../../util/recencyMap.js';
import type { Label } from './labels.js';

/** One label entering a session: by which call, when. */
export interface TaintSource {
  readonly label: Label;
  readonly server: string;
  /** The exposed tool or prompt name, or the resource URI. */
  readonly tool: string | undefined;
  /** ms since the epoch. */
  readonly at: number;
  /** Why the label: its origin (`config servers.notes.labels`, `annotation openWorldHint`, `injection markers in the result`, ...). */
  readonly via: string;
}

/** Where a secret came from (its value is never kept, only a keyed hash). */
export interface SecretOrigin {
  readonly server: string;
  readonly tool: string | undefined;
  readonly at: number;
}

/** The taint of one key. */
export interface TaintState {
  /** At most one source per label, server and tool (the latest time). */
  readonly sources: readonly TaintSource[];
  /** Fingerprint → origin. */
  readonly secrets: ReadonlyMap<string, SecretOrigin>;
}

/**
 * Keeps taint by key. Implementations bound their memory and expire idle keys. An in-process
 * store answers synchronously; a shared one returns promises (several calls made in one tick
 * should go out as one round trip), which reject when the shared store cannot be reached.
 */
export interface TaintStore {
  /** The taint of `key`, or undefined (none, or expired). */
  get(key: string, now: number): TaintState | undefined | Promise<TaintState | undefined>;
  /** Adds a source to `key`, which then lives until `now + ttlMs` (extended by each add). */
  addSource(key: string, source: TaintSource, ttlMs: number, now: number): void | Promise<void>;
  /** Adds a secret fingerprint to `key`, likewise. */
  addSecret(key: string, fingerprint: string, origin: SecretOrigin, ttlMs: number, now: number): void | Promise<void>;
}

/** A {@link TaintStore} that answers synchronously (the in-process ones). */
export interface SyncTaintStore extends TaintStore {
  get(key: string, now: number): TaintState | undefined;
  addSource(key: string, source: TaintSource, ttlMs: number, now: number): void;
  addSecret(key: string, fingerprint: string, origin: SecretOrigin, ttlMs: number, now: number): void;
}

/** Options of {@link MemoryTaintStore}. */
export interface MemoryTaintStoreOptions {
  /** Most keys tracked; beyond it the least recently used is dropped. Default 10000. */
  readonly maxKeys?: number;
  /** Most sources per key (oldest dropped). Default 64. */
  readonly maxSources?: number;
  /** Most secret fingerprints per key (oldest dropped). Default 1024. */
  readonly maxSecrets?: number;
}

interface Entry {
  expires: number;
  sources: TaintSource[];
  secrets: Map<string, SecretOrigin>;
}

/** Whether two sources have the same label, server and tool (a store keeps one source per such triple). */
function sameOrigin(a: TaintSource, b: TaintSource): boolean {
  return a.label === b.label && a.server === b.server && a.tool === b.tool;
}

/** Taint in this process's memory, bounded in keys, sources and secrets per key. */
export class MemoryTaintStore implements SyncTaintStore {
  /** Most recently used last; beyond `maxKeys` the oldest are dropped. */
  readonly #entries: RecencyMap<string, Entry>;
  readonly #maxSources: number;
  readonly #maxSecrets: number;

  constructor(options: MemoryTaintStoreOptions = {}) {
    this.#entries = new RecencyMap(options.maxKeys ?? 10_000);
    this.#maxSources = options.maxSources ?? 64;
    this.#maxSecrets = options.maxSecrets ?? 1024;
  }

  /** Keys tracked now (expired ones included until touched). */
  get size(): number {
    return this.#entries.size;
  }

  get(key: string, now: number): TaintState | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  addSource(key: string, source: TaintSource, ttlMs: number, now: number): void {
    const entry = this.#touch(key, ttlMs, now);
    const sources = entry.sources;
    const last = sources.length - 1;
    const newest = sources[last];
    // The same source again (a tool called over and over): it stays last, with the new time.
    if (newest !== undefined && sameOrigin(newest, source)) {
      sources[last] = source;
      return;
    }
    const same = sources.findIndex((s) => sameOrigin(s, source));
    if (same >= 0) sources.splice(same, 1);
    sources.push(source);
    if (sources.length > this.#maxSources) sources.shift();
  }

  addSecret(key: string, fingerprint: string, origin: SecretOrigin, ttlMs: number, now: number): void {
    const entry = this.#touch(key, ttlMs, now);
    entry.secrets.delete(fingerprint);
    entry.secrets.set(fingerprint, origin);
    if (entry.secrets.size > this.#maxSecrets) entry.secrets.delete(entry.secrets.keys().next().value as string);
  }

  /** The sources of `key` and when it expires (for a persistent copy), or undefined (none, or expired). */
  snapshot(key: string, now: number): { readonly expires: number; readonly sources: readonly TaintSource[] } | undefined {
    const entry = this.get(key, now) as Entry | undefined;
    return entry === undefined ? undefined : { expires: entry.expires, sources: [...entry.sources] };
  }

  /** Puts back the sources of `key` (from a persistent copy), joined with what is there, until `expires`. */
  restore(key: string, expires: number, sources: readonly TaintSource[], now: number): void {
    if (expires <= now) return;
    for (const source of sources) this.addSource(key, source, expires - now, now);
  }

  #touch(key: string, ttlMs: number, now: number): Entry {
    let entry = this.#entries.get(key);
    // An expired entry is replaced; either way the key becomes the most recently used.
    if (entry === undefined || entry.expires <= now) entry = { expires: 0, sources: [], secrets: new Map() };
    entry.expires = Math.max(entry.expires, now + ttlMs);
    this.#entries.use(key, entry);
    return entry;
  }
}

/** The `_meta` key a 2026-07-28 client may carry a conversation id in. */
export const CONVERSATION_META_KEY = 'io.switchboard/conversation';

/** How long each kind of key lives after its last taint. */
export interface TaintWindows {
  /** A stateful session or a conversation. Default 24 h. */
  readonly sessionMs: number;
  /** The principal. Default 1 h. */
  readonly principalMs: number;
}

/** Default {@link TaintWindows}. */
export const DEFAULT_TAINT_WINDOWS: TaintWindows = Object.freeze({ sessionMs: 86_400_000, principalMs: 3_600_000 });

/** The keys of one request: the session's (or conversation's) and the principal's. */
export interface TaintKeys {
  /** The session (stateful), or conversation (2026-07-28), or undefined (neither). */
  readonly session: string | undefined;
  readonly principal: string;
}

/**
 * The taint keys of a request: `session` (the stateful session id), else `conversation`
 * (a client-carried id, bound to the principal so one caller cannot reach another's), and the
 * principal. See the module comment for why the principal is always joined.
 */
export function taintKeys(principal: string | undefined, session: string | undefined, conversation: string | undefined): TaintKeys {
  const who = principal ?? 'anonymous';
  const own = session !== undefined ? `session:${session}` : conversation !== undefined ? `conversation:${who}/${conversation}` : undefined;
  return { session: own, principal: `principal:${who}` };
}

/**
 * The joined taint of a request's keys: sources (deduplicated) and secrets. Synchronous for a
 * {@link SyncTaintStore}; a promise when the store answers with one (both keys are asked at
 * once, so a shared store can fetch them in one round trip).
 */
export function joinTaint(store: SyncTaintStore, keys: TaintKeys, now: number): TaintState | undefined;
export function joinTaint(store: TaintStore, keys: TaintKeys, now: number): TaintState | undefined | Promise<TaintState | undefined>;
export function joinTaint(store: TaintStore, keys: TaintKeys, now: number): TaintState | undefined | Promise<TaintState | undefined> {
  const own = keys.session === undefined ? undefined : store.get(keys.session, now);
  const principal = store.get(keys.principal, now);
  if (own instanceof Promise || principal instanceof Promise) return Promise.all([own, principal]).then(([o, p]) => joined(o, p));
  return joined(own, principal);
}

function joined(own: TaintState | undefined, principal: TaintState | undefined): TaintState | undefined {
  if (own === undefined) return principal;
  if (principal === undefined) return own;
  return { sources: joinSources(own.sources, principal.sources), secrets: principal.secrets.size === 0 ? own.secrets : own.secrets.size === 0 ? principal.secrets : new Map([...principal.secrets, ...own.secrets]) };
}

const sameSource = (a: TaintSource, b: TaintSource): boolean => a.label === b.label && a.server === b.server && (a.tool ?? '') === (b.tool ?? '');

/** The session's sources, then the principal's, each (label, server, tool) once, the first kept. */
function joinSources(own: readonly TaintSource[], principal: readonly TaintSource[]): TaintSource[] {
  const sources: TaintSource[] = [];
  if (own.length + principal.length <= 16) {
    // Few sources (the common case): compare them pairwise, no key strings.
    for (const s of own) if (!sources.some((t) => sameSource(t, s))) sources.push(s);
    for (const s of principal) if (!sources.some((t) => sameSource(t, s))) sources.push(s);
    return sources;
  }
  const seen = new Set<string>();
  for (const list of [own, principal]) {
    for (const s of list) {
      const k = `${s.label}\n${s.server}\n${s.tool ?? ''}`;
      if (seen.has(k)) continue;
      seen.add(k);
      sources.push(s);
    }
  }
  return sources;
}

