import type { SharedState } from './shared-state.ts';

/**
 * A value in the shared state that every change of some kind moves (an ACL written, a token ended), so each
 * instance learns with one read that what it derived from the old state may be out of date. The value is
 * random, not a counter, so a shared state that lost its data cannot bring back one an instance has seen.
 */
export class SharedGeneration {
  readonly #shared: SharedState;
  readonly #key: string;
  readonly #log: (line: string) => void;
  /** What goes wrong while the shared state cannot be read, for the log. */
  readonly #whileAway: string;
  #seen: string | null = null;
  #unreachable = false;

  constructor(shared: SharedState, key: string, log: (line: string) => void, whileAway: string) {
    this.#shared = shared;
    this.#key = key;
    this.#log = log;
    this.#whileAway = whileAway;
  }

  /** True while the last read failed: callers fall back to what they keep for a time only. */
  get unreachable(): boolean {
    return this.#unreachable;
  }

  /** Moves the value: every instance's next `moved()` answers true. Throws when the shared state is away. */
  async move(): Promise<void> {
    await this.#shared.set(this.#key, crypto.randomUUID());
  }

  /**
   * Whether the value moved since the last look (the first look counts as a move). When it cannot be read,
   * answers false and logs `whileAway` once until it can be read again.
   */
  async moved(): Promise<boolean> {
    let seen: string;
    try {
      seen = (await this.#shared.get(this.#key)) ?? '';
      this.#unreachable = false;
    } catch (error) {
      if (!this.#unreachable) this.#log(`warning: ${this.#whileAway}: ${(error as Error).message}`);
      this.#unreachable = true;
      return false;
    }
    if (seen === this.#seen) return false;
    this.#seen = seen;
    return true;
  }
}
