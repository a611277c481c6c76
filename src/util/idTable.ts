/**
 * `IdTable`: a map from request ids to what waits on them, for the long-lived tables of requests
 * in flight (a connection's pending requests, a session's running ones), which add and remove an
 * entry per request for as long as the process runs.
 *
 * Why not a `Map`: V8 gives a `Map` a new backing table each time deleted entries fill its
 * capacity (every few dozen requests at a steady load), and allocates it in old space once the
 * `Map` lives there. The table it replaces is garbage, but stays in old space until the next
 * mark-compact, still pointing at the entries that were in flight when it was replaced. The
 * scavenger treats those pointers as roots, so each request's whole object graph (its HTTP
 * request and response, its promises and closures) survives, is promoted and dies in old space:
 * on a busy stateful HTTP session, ~7 KB promoted per request and a fifth of the CPU in the
 * scavenger (issue #35).
 *
 * Here, non-negative integer ids (what `Connection` numbers its requests with, and what
 * clients use) live in a fixed-size slot array indexed by the id's low bits: adding and removing
 * only writes a slot, no table is ever replaced. An id whose slot is taken (a long-running request
 * still holding it, or an id of another form) goes to an overflow `Map`, used rarely. The slot
 * array grows (doubling, up to a bound) only when it is half full.
 * @module
 */

/** Slots of a new table; doubled while more than half are taken, up to {@link MAX_SLOTS}. */
const INITIAL_SLOTS = 16;
const MAX_SLOTS = 4096;

/** A map keyed by JSON-RPC request ids that adds and removes without reallocating (see the module comment). */
export class IdTable<K extends string | number, V> {
  #keys: (K | undefined)[] = new Array<K | undefined>(INITIAL_SLOTS).fill(undefined);
  #values: (V | undefined)[] = new Array<V | undefined>(INITIAL_SLOTS).fill(undefined);
  #mask = INITIAL_SLOTS - 1;
  /** Entries in slots. */
  #slotted = 0;
  #overflow: Map<K, V> | undefined;
  /** Insertion order across slots and overflow, for {@link values}. */
  #order = 0;
  #orders: number[] = new Array<number>(INITIAL_SLOTS).fill(0);

  /** Slots in the slot array (diagnostics, tests: it does not change while requests come and go). */
  get slots(): number {
    return this.#keys.length;
  }

  /** Entries kept in the overflow `Map` (diagnostics, tests). */
  get overflowed(): number {
    return this.#overflow?.size ?? 0;
  }

  /** Entries held. */
  get size(): number {
    return this.#slotted + (this.#overflow?.size ?? 0);
  }

  get(key: K): V | undefined {
    const at = this.#slot(key);
    if (at >= 0 && this.#keys[at] === key) return this.#values[at];
    return this.#overflow?.get(key);
  }

  has(key: K): boolean {
    const at = this.#slot(key);
    if (at >= 0 && this.#keys[at] === key) return true;
    return this.#overflow?.has(key) === true;
  }

  set(key: K, value: V): this {
    let at = this.#slot(key);
    if (at >= 0 && this.#keys[at] !== undefined && this.#keys[at] !== key && this.#slotted * 2 >= this.#keys.length && this.#keys.length < MAX_SLOTS) {
      this.#grow();
      at = this.#slot(key);
    }
    if (at >= 0 && (this.#keys[at] === undefined || this.#keys[at] === key)) {
      if (this.#keys[at] === undefined) {
        this.#slotted++;
        this.#overflow?.delete(key);
      }
      this.#keys[at] = key;
      this.#values[at] = value;
      this.#orders[at] = this.#order++;
      return this;
    }
    (this.#overflow ??= new Map()).set(key, value);
    return this;
  }

  delete(key: K): boolean {
    const at = this.#slot(key);
    if (at >= 0 && this.#keys[at] === key) {
      this.#keys[at] = undefined;
      this.#values[at] = undefined;
      this.#slotted--;
      return true;
    }
    return this.#overflow?.delete(key) === true;
  }

  clear(): void {
    this.#keys.fill(undefined);
    this.#values.fill(undefined);
    this.#slotted = 0;
    this.#overflow = undefined;
  }

  /** The values, slotted ones in insertion order, then the overflow's (a snapshot: safe to change the table while iterating). */
  values(): V[] {
    return this.entries().map((entry) => entry[1]);
  }

  /** The entries, in the order of {@link values} (a snapshot). */
  entries(): [K, V][] {
    const slotted: { order: number; entry: [K, V] }[] = [];
    for (let i = 0; i < this.#keys.length; i++) {
      const key = this.#keys[i];
      if (key !== undefined) slotted.push({ order: this.#orders[i] as number, entry: [key, this.#values[i] as V] });
    }
    slotted.sort((a, b) => a.order - b.order);
    const out = slotted.map((s) => s.entry);
    if (this.#overflow !== undefined) out.push(...this.#overflow.entries());
    return out;
  }

  /** The slot of an integer id, or -1 for ids of other forms (overflow only). */
  #slot(key: K): number {
    return typeof key === 'number' && Number.isSafeInteger(key) && key >= 0 ? key & this.#mask : -1;
  }

  #grow(): void {
    const keys = this.#keys;
    const values = this.#values;
    const orders = this.#orders;
    const size = keys.length * 2;
    this.#keys = new Array<K | undefined>(size).fill(undefined);
    this.#values = new Array<V | undefined>(size).fill(undefined);
    this.#orders = new Array<number>(size).fill(0);
    this.#mask = size - 1;
    this.#slotted = 0;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (key === undefined) continue;
      const at = this.#slot(key);
      if (this.#keys[at] === undefined) {
        this.#keys[at] = key;
        this.#values[at] = values[i];
        this.#orders[at] = orders[i] as number;
        this.#slotted++;
      } else (this.#overflow ??= new Map()).set(key, values[i] as V);
    }
  }
}
