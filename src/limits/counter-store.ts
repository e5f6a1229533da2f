/** A counter after one hit: the count in the key's current window and when that window ends. */
export interface WindowCount {
  count: number;
  /** Milliseconds since the epoch. */
  resetAt: number;
}

/**
 * Where rate-limit counters live. In memory by default; with `--redis-url` the shared store
 * (`SharedCounterStore`, over the platform's `SharedState`) makes the limits hold across instances. Each key's window starts at its first counted hit and lasts `windowMs`
 * (one pod per day means 24 hours from that client's first creation, not until a midnight shared by all).
 */
export interface CounterStore {
  /** Adds `amount` (1 for a hit, -1 to refund one) to the key's count in its window at `now`. */
  add(key: string, windowMs: number, now: number, amount?: number): Promise<WindowCount>;
}

/** Expired windows are swept once the map has grown by this many keys. */
const SWEEP_EVERY = 10_000;

export class MemoryCounterStore implements CounterStore {
  private readonly counts = new Map<string, WindowCount>();
  private sweepAt = SWEEP_EVERY;

  async add(key: string, windowMs: number, now: number, amount = 1): Promise<WindowCount> {
    const slot = `${key}@${windowMs}`;
    const stored = this.counts.get(slot);
    const current = stored && stored.resetAt > now ? stored : { count: 0, resetAt: now + windowMs };
    const next = { count: Math.max(0, current.count + amount), resetAt: current.resetAt };
    // A window refunded to nothing is forgotten, so the next counted hit starts a full window of its own.
    if (next.count === 0) this.counts.delete(slot);
    else this.counts.set(slot, next);
    if (this.counts.size >= this.sweepAt) this.sweep(now);
    return next;
  }

  private sweep(now: number): void {
    for (const [slot, value] of this.counts) if (value.resetAt <= now) this.counts.delete(slot);
    this.sweepAt = this.counts.size + SWEEP_EVERY;
  }
}
