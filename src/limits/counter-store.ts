/** A fixed-window counter after one hit: the count in the window and when the window ends. */
export interface WindowCount {
  count: number;
  /** Milliseconds since the epoch. */
  resetAt: number;
}

/**
 * Where rate-limit counters live. In memory by default; a shared store (unstorage over Redis or KV) makes
 * the limits hold across instances. Windows are aligned to multiples of their length, so every instance
 * computes the same window for the same moment.
 */
export interface CounterStore {
  /** Adds `amount` (1 for a hit, -1 to refund one) to the key's count in the window holding `now`. */
  add(key: string, windowMs: number, now: number, amount?: number): Promise<WindowCount>;
}

export function windowOf(windowMs: number, now: number): { start: number; resetAt: number } {
  const start = Math.floor(now / windowMs) * windowMs;
  return { start, resetAt: start + windowMs };
}

/** Expired windows are swept once the map has grown by this many keys. */
const SWEEP_EVERY = 10_000;

export class MemoryCounterStore implements CounterStore {
  private readonly counts = new Map<string, WindowCount>();
  private sweepAt = SWEEP_EVERY;

  async add(key: string, windowMs: number, now: number, amount = 1): Promise<WindowCount> {
    const { start, resetAt } = windowOf(windowMs, now);
    const slot = `${key}@${start}`;
    const current = this.counts.get(slot) ?? { count: 0, resetAt };
    const next = { count: Math.max(0, current.count + amount), resetAt };
    this.counts.set(slot, next);
    if (this.counts.size >= this.sweepAt) this.sweep(now);
    return next;
  }

  private sweep(now: number): void {
    for (const [slot, value] of this.counts) if (value.resetAt <= now) this.counts.delete(slot);
    this.sweepAt = this.counts.size + SWEEP_EVERY;
  }
}
