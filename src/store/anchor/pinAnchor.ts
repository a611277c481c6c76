/**
 * The pin store's anchor (see `anchorFile.ts`): a digest of every server's record, written
 * with each change. {@link AnchoredPinStore} wraps a {@link PinStore}:
 *
 * - **At open** ({@link AnchoredPinStore.open}) the store must hold exactly the records the
 *   anchor names. A store moved away (a new, empty one in its place), replaced by another or
 *   older copy, or edited outside Switchboard is refused with an {@link AnchorError}: the host
 *   never pins its servers anew as first use because the file that remembered them is gone.
 *   Without an anchor yet (the first anchored run) the store's records are anchored as they are.
 * - **Each write** runs inside the store's own atomic read-modify-write: the record read must
 *   match its anchored digest, then the anchor names the new digest (and the one before it:
 *   a write that fails or a process killed before its commit leaves the old record, which
 *   still matches), and only then does the store commit; once it has, the old digest is
 *   dropped (under the write lock again), so a store put back to before the write is refused.
 *   Writers in other processes use the same wrapper (`switchboard pins approve`) and are
 *   serialised by the store's write lock.
 *
 * @module
 */
import { sha256Text } from '../auditChain.js';
import { canonicalize } from '../../util/canonicalJson.js';
import type { PinStore, ServerPins } from '../../host/pins/pinStore.js';
import { AnchorError, resetHint, type AnchorFolder } from './anchorFile.js';

/** One server's anchored digest; `prev` is the one before the last write (still accepted: that write may not have committed). */
interface PinEntry {
  readonly digest: string | null;
  readonly prev?: string | null;
}

/** The pins' checkpoint body. */
interface PinAnchorBody {
  readonly servers: Readonly<Record<string, PinEntry>>;
  /** When it was written (epoch ms). */
  readonly at: number;
}

/** What {@link AnchoredPinStore.open} found. */
export interface PinAnchorStatus {
  /** True when there was no anchor yet and the store was anchored as it is. */
  readonly created: boolean;
  /** Servers anchored. */
  readonly servers: number;
}

/** The digest of one record as stored and read back (a JSON round trip, canonical text). */
export function pinRecordDigest(pins: ServerPins): string {
  return sha256Text(canonicalize(JSON.parse(JSON.stringify(pins))));
}

/**
 * What is wrong with the store's records against the anchor's: one line per server, empty
 * when they match.
 */
export function pinAnchorProblems(records: readonly ServerPins[], servers: Readonly<Record<string, PinEntry>>): string[] {
  const current = new Map(records.map((r) => [r.identity, { digest: pinRecordDigest(r), alias: r.alias }]));
  const problems: string[] = [];
  for (const [identity, entry] of Object.entries(servers)) {
    const now = current.get(identity)?.digest ?? null;
    if (now === entry.digest || (entry.prev !== undefined && now === entry.prev)) continue;
    problems.push(now === null ? `the pins of ${identity} are missing (the store was moved away, replaced or emptied)` : `the pins of ${identity} differ from the anchored ones (replaced by another copy, or edited outside Switchboard)`);
  }
  for (const [identity, { alias }] of current) {
    if (servers[identity] === undefined) problems.push(`the pins of ${identity} (${alias}) were added outside Switchboard`);
  }
  return problems;
}

/** A {@link PinStore} that keeps its anchor (see the module comment). */
export class AnchoredPinStore implements PinStore {
  readonly #inner: PinStore;
  readonly #folder: AnchorFolder;
  readonly #name: string;
  readonly #config: string | undefined;
  readonly #now: () => number;

  private constructor(inner: PinStore, folder: AnchorFolder, name: string, config: string | undefined, now: () => number) {
    this.#inner = inner;
    this.#folder = folder;
    this.#name = name;
    this.#config = config;
    this.#now = now;
  }

  /**
   * Checks `inner` against its anchor in `folder` (`name` names the store: its file) and wraps it.
   * `config` is named in the reset hint.
   *
   * @throws AnchorError when the store does not match its anchor.
   */
  static async open(inner: PinStore, folder: AnchorFolder, name: string, options: { readonly config?: string; readonly now?: () => number } = {}): Promise<{ store: AnchoredPinStore; status: PinAnchorStatus }> {
    const now = options.now ?? Date.now;
    const records = await inner.load();
    const body = folder.read<PinAnchorBody>('pins', name);
    if (body !== undefined) {
      const problems = pinAnchorProblems(records, body.servers);
      if (problems.length > 0) {
        throw new AnchorError(`The pin store ${name} does not match its anchor (${folder.fileOf('pins', name)}): ${problems.join('; ')}. Its servers are not pinned anew as first use. ${resetHint(options.config)}`);
      }
    }
    // Anchored as it is now (the first anchored run; else the same records without the `prev` of a write that committed).
    folder.write<PinAnchorBody>('pins', name, anchorOf(records, now()));
    return { store: new AnchoredPinStore(inner, folder, name, options.config, now), status: { created: body === undefined, servers: records.length } };
  }

  /**
   * Anchors `inner` as it is now, whatever the anchor said (`switchboard anchor reset`).
   * Resolves with the servers anchored.
   */
  static async reset(inner: PinStore, folder: AnchorFolder, name: string, now: () => number = Date.now): Promise<number> {
    const records = await inner.load();
    folder.write<PinAnchorBody>('pins', name, anchorOf(records, now()));
    return records.length;
  }

  load(): Promise<readonly ServerPins[]> {
    return this.#inner.load();
  }

  save(pins: ServerPins): Promise<void> {
    return this.update(pins.identity, () => pins).then(() => undefined);
  }

  async update(identity: string, change: (current: ServerPins | undefined) => ServerPins | undefined): Promise<ServerPins | undefined> {
    let written: string | null | undefined;
    const stored = await this.#inner.update(identity, (current) => {
      const next = change(current);
      if (next !== undefined) written = this.#advance(identity, current, next);
      return next;
    });
    if (written !== undefined) await this.#settle(identity, written);
    return stored;
  }

  async remove(identity: string): Promise<void> {
    const current = (await this.#inner.load()).find((r) => r.identity === identity);
    this.#advance(identity, current, undefined);
    await this.#inner.remove(identity);
    await this.#settle(identity, null);
  }

  /**
   * After a write of `identity` committed: its `prev` is dropped (a store put back to before the
   * write no longer matches), under the store's write lock (a write that changes nothing), so
   * another process's anchor update is not lost; unless another write moved the entry since.
   */
  async #settle(identity: string, digest: string | null): Promise<void> {
    await this.#inner.update(identity, () => {
      const body = this.#folder.read<PinAnchorBody>('pins', this.#name);
      const entry = body?.servers[identity];
      if (body === undefined || entry === undefined || entry.digest !== digest || entry.prev === undefined) return undefined;
      const servers: Record<string, PinEntry> = { ...body.servers };
      if (digest === null) delete servers[identity];
      else servers[identity] = { digest };
      this.#folder.write<PinAnchorBody>('pins', this.#name, { servers, at: this.#now() });
      return undefined;
    });
  }

  /**
   * Before a write of `identity` commits: the record read must match the anchor, which then
   * names the new digest (and the current one as `prev`).
   *
   * @throws AnchorError when the record read was not the anchored one.
   * @returns the digest now anchored (null: removed).
   */
  #advance(identity: string, current: ServerPins | undefined, next: ServerPins | undefined): string | null {
    const body = this.#folder.read<PinAnchorBody>('pins', this.#name) ?? { servers: {}, at: 0 };
    const now = current === undefined ? null : pinRecordDigest(current);
    const entry = body.servers[identity];
    const known = entry === undefined ? now === null : now === entry.digest || (entry.prev !== undefined && now === entry.prev);
    if (!known) {
      throw new AnchorError(`The pins of ${identity} in ${this.#name} differ from the anchored ones (changed outside Switchboard); not written. ${resetHint(this.#config)}`);
    }
    const digest = next === undefined ? null : pinRecordDigest(next);
    const servers: Record<string, PinEntry> = { ...body.servers, [identity]: { digest, prev: now } };
    this.#folder.write<PinAnchorBody>('pins', this.#name, { servers, at: this.#now() });
    return digest;
  }

  watch(listener: () => void): () => void {
    return this.#inner.watch?.(listener) ?? (() => undefined);
  }

  close(): Promise<void> {
    return Promise.resolve(this.#inner.close?.());
  }
}

function anchorOf(records: readonly ServerPins[], at: number): PinAnchorBody {
  return { servers: Object.fromEntries(records.map((r) => [r.identity, { digest: pinRecordDigest(r) }])), at };
}
