/**
 * Taint that outlives a gateway restart: {@link PersistentTaintStore} keeps taint in a
 * {@link MemoryTaintStore} for every decision and writes the sources of the keys that changed to
 * a {@link TaintSnapshotStore} behind the calls (at most `flushMs` later, and at close); at start
 * it loads what has not expired. The store layer has the SQLite one (`SqliteTaintSnapshot`,
 * `stateDir/taint.db`).
 *
 * - **What survives.** The label sources of every key (session, conversation, principal) with
 *   their expiry: after a restart the trifecta still sees what entered a session before it.
 * - **What does not.** Secret fingerprints (value taint): they are keyed with a per-process
 *   key that is never written down, so a restart forgets them. A kill (SIGKILL, power loss)
 *   also loses the sources added within the last `flushMs` (default 1 s).
 * - **Failures.** A snapshot that cannot be written is reported (`onError`) and retried at the
 *   next flush; decisions go on from memory, which holds everything.
 *
 * @module
 */
import { MemoryTaintStore, type MemoryTaintStoreOptions, type SecretOrigin, type TaintSource, type TaintState, type SyncTaintStore } from './taint.js';

/** The saved taint of one key. */
export interface TaintSnapshotRow {
  readonly key: string;
  /** ms since the epoch. */
  readonly expires: number;
  readonly sources: readonly TaintSource[];
}

/** Where taint is saved between runs. */
export interface TaintSnapshotStore {
  /** The rows that have not expired at `now`. */
  load(now: number): TaintSnapshotRow[];
  /** Writes `rows` (replacing those keys) and drops the rows expired at `now`. */
  save(rows: readonly TaintSnapshotRow[], now: number): void;
  close(): void;
}

/** Options of {@link PersistentTaintStore}. */
export interface PersistentTaintStoreOptions extends MemoryTaintStoreOptions {
  /** Longest delay before a change is written (ms). Default 1000. */
  readonly flushMs?: number;
  /** Told when a snapshot cannot be written (it is retried at the next flush). */
  readonly onError?: (error: unknown) => void;
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
}

/** A {@link TaintStore} whose label sources survive a restart (see the module comment). */
export class PersistentTaintStore implements SyncTaintStore {
  readonly #memory: MemoryTaintStore;
  readonly #snapshot: TaintSnapshotStore;
  readonly #dirty = new Set<string>();
  readonly #flushMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #now: () => number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(snapshot: TaintSnapshotStore, options: PersistentTaintStoreOptions = {}) {
    this.#memory = new MemoryTaintStore(options);
    this.#snapshot = snapshot;
    this.#flushMs = options.flushMs ?? 1000;
    this.#onError = options.onError ?? (() => undefined);
    this.#now = options.now ?? Date.now;
    const now = this.#now();
    for (const row of snapshot.load(now)) this.#memory.restore(row.key, row.expires, row.sources, now);
  }

  get(key: string, now: number): TaintState | undefined {
    return this.#memory.get(key, now);
  }

  addSource(key: string, source: TaintSource, ttlMs: number, now: number): void {
    this.#memory.addSource(key, source, ttlMs, now);
    this.#dirty.add(key);
    if (this.#timer === undefined && !this.#closed) {
      this.#timer = setTimeout(() => this.flush(), this.#flushMs);
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  addSecret(key: string, fingerprint: string, origin: SecretOrigin, ttlMs: number, now: number): void {
    this.#memory.addSecret(key, fingerprint, origin, ttlMs, now);
  }

  /** Writes the keys changed since the last flush now. */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#dirty.size === 0) return;
    const now = this.#now();
    const keys = [...this.#dirty];
    const rows: TaintSnapshotRow[] = [];
    for (const key of keys) {
      const snap = this.#memory.snapshot(key, now);
      // An expired or evicted key is written as expired, so the save drops it.
      rows.push(snap === undefined ? { key, expires: 0, sources: [] } : { key, expires: snap.expires, sources: snap.sources });
    }
    try {
      this.#snapshot.save(rows, now);
      for (const key of keys) this.#dirty.delete(key);
    } catch (error) {
      this.#onError(error);
    }
  }

  /** Flushes, then closes the snapshot store. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.flush();
    this.#snapshot.close();
  }
}
