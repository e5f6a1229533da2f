/**
 * Old versions of small files kept as the temp files of later writes (docs/decisions.md, "Old versions as
 * the next temp files").
 *
 * An overwrite renames a new file over the old version, whose inode the kernel then frees. Creating the next
 * temp file allocates a new inode, and on ext4 without a journal the allocator passes over every inode freed
 * in the last minutes: at a few hundred overwrites a second that scan alone cost ~300 µs of CPU per write
 * (`recently_deleted` in the kernel's profile), more than the rest of a PUT. Freeing the old version's block
 * (a discard on a disk mounted with `discard`) and the writeout a rename starts for a new file's delayed
 * blocks (`auto_da_alloc`) come on top. So before the rename the driver gives the old version a spare name
 * (a hard link in the data root) and a later small write opens that file, writes its body over the old one
 * and renames it into place: no inode or block is allocated or freed, and the rename still replaces the
 * whole file at once (a crash leaves the old version or the new one).
 *
 * A spare is reused only once it is `minAgeMs` old, so a reader that opened the old version just before it
 * was replaced (another program reading the data directory) has read it by then; this driver's own reads
 * compare the file's stats before and after reading and read again when they differ (fs.ts). The wait is
 * short (a quarter of a second) because the pool holds the overwrites of that time, and while the rate of
 * writes rises, each write that finds no spare old enough makes a new file: the longer the wait, the more
 * such writes (~15% at a second on this machine, at full speed). A spare is used
 * only while it has no other name (its link count is 1), so a file some other program linked (a backup made
 * of hard links) is never written into. A spare over `maxAgeMs` old is removed, not written into, by the next
 * small write that looks for one; all are removed on a clean stop, and after a crash the start's sweep of the
 * root's reserved names removes them. A power loss is another matter: the body written into a spare is not
 * ordered before its rename as a new file's is (ext4's `auto_da_alloc`), so a file may come back with older
 * bytes (docs/decisions.md, "Old versions as the next temp files").
 */
export interface SpareOptions {
  /** At most this many spares at once (default 1,024: a quarter of a second of overwrites at four times this machine's speed). */
  max?: number;
  minAgeMs?: number;
  maxAgeMs?: number;
  now?: () => number;
}

interface Spare {
  path: string;
  since: number;
}

export class SpareFiles {
  readonly #max: number;
  readonly #minAgeMs: number;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  /** Oldest first: spares are added in time order. */
  #spares: Spare[] = [];
  #first = 0;

  constructor(options: SpareOptions = {}) {
    this.#max = options.max ?? 1024;
    this.#minAgeMs = options.minAgeMs ?? 250;
    this.#maxAgeMs = options.maxAgeMs ?? 60_000;
    this.#now = options.now ?? (() => Date.now());
  }

  get size(): number {
    return this.#spares.length - this.#first;
  }

  get hasRoom(): boolean {
    return this.size < this.#max;
  }

  add(path: string): void {
    this.#spares.push({ path, since: this.#now() });
  }

  /**
   * The oldest spare old enough to be written into, or null; `expired` receives the spares too old to keep,
   * for the caller to remove.
   */
  take(expired: string[]): string | null {
    const now = this.#now();
    while (this.#first < this.#spares.length) {
      const spare = this.#spares[this.#first]!;
      if (now - spare.since < this.#minAgeMs) return null;
      this.#shift();
      if (now - spare.since <= this.#maxAgeMs) return spare.path;
      expired.push(spare.path);
    }
    return null;
  }

  /** Every spare, forgotten: for the caller to remove. */
  drain(): string[] {
    const all = this.#spares.slice(this.#first).map((spare) => spare.path);
    this.#spares = [];
    this.#first = 0;
    return all;
  }

  #shift(): void {
    this.#first++;
    if (this.#first > 64 && this.#first * 2 > this.#spares.length) {
      this.#spares = this.#spares.slice(this.#first);
      this.#first = 0;
    }
  }
}
