/**
 * In-memory implementations of the host's store interfaces, for tests and for hosts that
 * need no persistence. `store/jsonFileStore.ts` is the file-backed one.
 *
 * @module
 */
import type { LaunchApprovalStore } from './launchConsent.js';
import type { NameAssignmentStore, NameAssignments } from './namespacing.js';

/** A {@link NameAssignmentStore} holding a deep copy of the last saved record. */
export class MemoryNameAssignmentStore implements NameAssignmentStore {
  #saved: string | undefined;
  /** How many times `save` ran. */
  saves = 0;

  constructor(initial?: unknown) {
    this.#saved = initial === undefined ? undefined : JSON.stringify(initial);
  }

  /** The saved record (a fresh copy), or `undefined`. */
  load(): Promise<unknown> {
    return Promise.resolve(this.#saved === undefined ? undefined : (JSON.parse(this.#saved) as unknown));
  }

  /** Saves a copy of `record`. */
  save(record: NameAssignments): Promise<void> {
    this.#saved = JSON.stringify(record);
    this.saves++;
    return Promise.resolve();
  }
}

/** A {@link LaunchApprovalStore} in a map. */
export class MemoryLaunchApprovalStore implements LaunchApprovalStore {
  readonly #digests = new Map<string, string>();

  constructor(initial: Readonly<Record<string, string>> = {}) {
    for (const [id, digest] of Object.entries(initial)) this.#digests.set(id, digest);
  }

  /** The approved digest for `serverId`, if any. */
  get(serverId: string): Promise<string | undefined> {
    return Promise.resolve(this.#digests.get(serverId));
  }

  /** Records `digest` as approved for `serverId`. */
  set(serverId: string, digest: string): Promise<void> {
    this.#digests.set(serverId, digest);
    return Promise.resolve();
  }
}
