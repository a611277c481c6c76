/**
 * What the pins persist, and the {@link PinStore} interface the host needs (SQLite in
 * `store/sqlitePinStore.ts`, the embedded default; {@link MemoryPinStore} for tests).
 *
 * One {@link ServerPins} record per server identity (see `serverIdentity.ts`): the approved
 * definitions with their field-group digests and trust level, and the changes waiting for a
 * person (`pending`). A store that cannot be read must fail: the pins (`PinTrust`) then refuse to serve
 * (fail closed), never falls back to trusting on first use.
 *
 * @module
 */
import { McpError, McpErrorCode } from '../../util/errors.js';
import type { PinChange } from './pinDiff.js';
import type { ItemKind } from '../../protocol/model/common.js';
import type { GroupDigests } from './pinDigests.js';

/**
 * Why a definition is trusted: pinned the first time it was seen (`first-use`), signed by the
 * key pinned for the server (`pinned-key`), signed by a publisher key from the config
 * (`trusted-publisher`), or approved by a person (`approved`).
 */
export type TrustLevel = 'first-use' | 'pinned-key' | 'trusted-publisher' | 'approved';

/** An approved definition. */
export interface PinnedItem {
  readonly kind: ItemKind;
  /** Name, URI or URI template. */
  readonly name: string;
  /** The definition as approved (served upstream as is). */
  readonly definition: Readonly<Record<string, unknown>>;
  readonly digests: GroupDigests;
  readonly trust: TrustLevel;
  /** When it was approved (epoch ms). */
  readonly at: number;
}

/** An observed definition that differs from the approved one (or is new), waiting for a person. */
export interface PendingItem {
  readonly kind: ItemKind;
  readonly name: string;
  readonly definition: Readonly<Record<string, unknown>>;
  readonly digests: GroupDigests;
  /** `changed`/`added`: waiting; `rejected`: a person refused it (it stays quarantined). */
  readonly status: 'changed' | 'added' | 'rejected';
  readonly changes: readonly PinChange[];
  /** When it was first observed (epoch ms). */
  readonly at: number;
}

/** Everything pinned for one server identity. */
export interface ServerPins {
  /** The stable identity (`stdio:sha256:…` or `http:https://host/path`). */
  readonly identity: string;
  /** The configured id it was last seen under (display only: a rename keeps the pins). */
  readonly alias: string;
  /** RFC 7638 thumbprint of the server's signing key, once one was seen or configured. */
  readonly keyThumbprint?: string;
  /** The approved instructions. */
  readonly instructions?: string;
  /** Instructions that changed since, waiting for review (never served). */
  readonly pendingInstructions?: string;
  /** Digest of the set of approved names. */
  readonly names: string;
  /** By item key (`tool:search`). */
  readonly items: Readonly<Record<string, PinnedItem>>;
  readonly pending: Readonly<Record<string, PendingItem>>;
  /** Epoch ms. */
  readonly updatedAt: number;
}

/** Persistence of pins. Implementations throw `ERR_MCP_STORE_CORRUPT` for unreadable data. */
export interface PinStore {
  /** Every server's pins. */
  load(): Promise<readonly ServerPins[]>;
  /** Replaces one server's record, unconditionally (whatever another instance wrote meanwhile is lost: use {@link PinStore.update} to change a record). */
  save(pins: ServerPins): Promise<void>;
  /**
   * Reads one server's record and writes what `change` returns for it (nothing when it returns
   * undefined), atomically: no other write of that server, from this or another process or
   * instance, lands between the read and the write. `change` runs once and must be synchronous
   * and pure. Resolves to the record stored afterwards. This is how a writer avoids the lost
   * update: `PinTrust` writes only over the record it decided on, and re-decides on the fresh one
   * otherwise (see `PinTrust`); an approval is applied to the fresh record.
   */
  update(identity: string, change: (current: ServerPins | undefined) => ServerPins | undefined): Promise<ServerPins | undefined>;
  /** Forgets a server identity. */
  remove(identity: string): Promise<void>;
  /** Calls `listener` after another process changed the store (`switchboard pins approve`); returns a stop function. */
  watch?(listener: () => void): () => void;
  /** Releases the store. */
  close?(): Promise<void>;
}

/** A damaged pin store: the message names where and what, and how to recover. */
export class PinStoreCorruptError extends McpError {
  constructor(where: string, detail: string, options?: { cause?: unknown }) {
    super(
      McpErrorCode.StoreCorrupt,
      `The pin store ${where} is damaged (${detail}). Pinned servers are not served until it is repaired; restore a backup, or delete it to pin every server again on first use.`,
      options,
    );
  }
}

/** Checks that `value` is a well-formed {@link ServerPins} (data read back from a store). */
export function checkServerPins(value: unknown, where: string): ServerPins {
  const fail = (detail: string): never => {
    throw new PinStoreCorruptError(where, detail, { cause: value });
  };
  if (typeof value !== 'object' || value === null) return fail('a record is not an object');
  const r = value as Record<string, unknown>;
  if (typeof r['identity'] !== 'string' || typeof r['alias'] !== 'string' || typeof r['names'] !== 'string' || typeof r['updatedAt'] !== 'number') {
    return fail('a record lacks identity, alias, names or updatedAt');
  }
  for (const member of ['items', 'pending'] as const) {
    const map = r[member];
    if (typeof map !== 'object' || map === null || Array.isArray(map)) return fail(`"${member}" of ${r['identity']} is not an object`);
    for (const [key, item] of Object.entries(map)) {
      const i = item as Record<string, unknown> | null;
      if (typeof i !== 'object' || i === null || typeof i['name'] !== 'string' || typeof i['kind'] !== 'string' || typeof i['definition'] !== 'object' || typeof i['digests'] !== 'object') {
        return fail(`${member} ${key} of ${r['identity']} is malformed`);
      }
    }
  }
  return value as ServerPins;
}

/** A {@link PinStore} in memory (deep copies in and out), for tests and hosts without persistence. */
export class MemoryPinStore implements PinStore {
  readonly #records = new Map<string, string>();
  readonly #listeners = new Set<() => void>();
  /** How many saves ran. */
  saves = 0;

  /** Every record, copied. */
  load(): Promise<readonly ServerPins[]> {
    return Promise.resolve([...this.#records.values()].map((text) => JSON.parse(text) as ServerPins));
  }

  /** Stores a copy. */
  save(pins: ServerPins): Promise<void> {
    this.#records.set(pins.identity, JSON.stringify(pins));
    this.saves++;
    return Promise.resolve();
  }

  /** Read-modify-write of one record (atomic: it runs synchronously). */
  update(identity: string, change: (current: ServerPins | undefined) => ServerPins | undefined): Promise<ServerPins | undefined> {
    try {
      const text = this.#records.get(identity);
      const next = change(text === undefined ? undefined : (JSON.parse(text) as ServerPins));
      if (next === undefined) return Promise.resolve(text === undefined ? undefined : (JSON.parse(text) as ServerPins));
      this.#records.set(identity, JSON.stringify(next));
      this.saves++;
      return Promise.resolve(JSON.parse(JSON.stringify(next)) as ServerPins);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Forgets a record. */
  remove(identity: string): Promise<void> {
    this.#records.delete(identity);
    return Promise.resolve();
  }

  /** Listens for {@link changedElsewhere}. */
  watch(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Simulates another process's change (tests): saves `pins` and tells the watchers. */
  async changedElsewhere(pins: ServerPins): Promise<void> {
    await this.save(pins);
    for (const l of this.#listeners) l();
  }
}
