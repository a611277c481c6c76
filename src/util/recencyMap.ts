/**
 * A bounded map in least-recently-used order.
 *
 * @module
 */

/**
 * A `Map` kept in use order (least recently used first), holding at most `max` entries: beyond
 * that the least recently used are dropped. Using the entry that is already the most recently
 * used again (a caller calling the same tool over and over) leaves the order as it is, without
 * re-inserting it.
 */
export class RecencyMap<K extends string, V> {
  readonly #map = new Map<K, V>();
  readonly #max: number;
  /** The key last used, while it is in the map. */
  #newest: K | undefined;

  constructor(max: number) {
    this.#max = max;
  }

  /** How many entries there are. */
  get size(): number {
    return this.#map.size;
  }

  /** The value of `key`, without counting as a use. */
  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  /** Whether `key` is the most recently used entry. */
  isNewest(key: K): boolean {
    return key === this.#newest;
  }

  /** Sets `key` to `value` as the most recently used entry, dropping the least recently used beyond the bound. */
  use(key: K, value: V): void {
    if (key === this.#newest && this.#map.get(key) === value) return;
    this.#map.delete(key);
    this.#map.set(key, value);
    this.#newest = key;
    while (this.#map.size > this.#max) this.delete(this.#map.keys().next().value as K);
  }

  /** Removes `key`. */
  delete(key: K): void {
    this.#map.delete(key);
    if (key === this.#newest) this.#newest = undefined;
  }
}
