/**
 * A map bounded by a total weight (bytes, or 1 per entry), so a cache of bodies or derived representations can
 * never grow the process past a known size. Eviction is "second chance" (CLOCK), close to least-recently-used:
 * a read only marks its entry as used (a hot path's cache hit moves nothing in the map); when room is needed,
 * the oldest entries go, except those read since they were last looked at, which move to the young end.
 */
export class BoundedCache<K, V> {
  readonly #entries = new Map<K, { value: V; weight: number; used: boolean }>();
  readonly #maxWeight: number;
  readonly #weigh: (value: V, key: K) => number;
  #weight = 0;

  /** `weigh` is asked once per `set`: an entry needs to keep nothing for it (its key is passed too). */
  constructor(maxWeight: number, weigh: (value: V, key: K) => number = () => 1) {
    this.#maxWeight = maxWeight;
    this.#weigh = weigh;
  }

  /** What the entries weigh in all, as their `weigh` said. */
  get weight(): number {
    return this.#weight;
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    entry.used = true;
    return entry.value;
  }

  /** The value without counting it as a use. */
  peek(key: K): V | undefined {
    return this.#entries.get(key)?.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const weight = this.#weigh(value, key);
    if (weight > this.#maxWeight) return;
    this.#entries.set(key, { value, weight, used: false });
    this.#weight += weight;
    // Each entry is passed over at most once per set: a used one moves to the young end, unmarked. The new
    // entry itself stays (alone it fits).
    let chances = this.#entries.size;
    for (const [oldest, entry] of this.#entries) {
      if (this.#weight <= this.#maxWeight) break;
      if (oldest === key) continue;
      this.#entries.delete(oldest);
      if (entry.used && chances-- > 0) {
        entry.used = false;
        this.#entries.set(oldest, entry);
      } else {
        this.#weight -= entry.weight;
      }
    }
  }

  clear(): void {
    this.#entries.clear();
    this.#weight = 0;
  }

  /** Removes every entry whose key passes the test. */
  deleteWhere(test: (key: K) => boolean): void {
    for (const key of [...this.#entries.keys()]) if (test(key)) this.delete(key);
  }

  delete(key: K): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#weight -= entry.weight;
  }
}
