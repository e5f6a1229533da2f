import type { SharedState } from '../cluster/shared-state.ts';
import type { CounterStore, WindowCount } from './counter-store.ts';

/**
 * Rate-limit counters in the state instances share (`--redis-url`): one atomic add per hit, the window
 * an expiry set at the key's first hit, so the limit holds for a client however its requests are spread.
 */
export class SharedCounterStore implements CounterStore {
  readonly #state: SharedState;

  constructor(state: SharedState) {
    this.#state = state;
  }

  async add(key: string, windowMs: number, now: number, amount = 1): Promise<WindowCount> {
    const answer = await this.#state.add(`rate:${key}@${windowMs}`, amount, { ttlMs: windowMs });
    return { count: Math.max(0, answer?.value ?? 0), resetAt: now + (answer?.ttlMs ?? windowMs) };
  }
}
