import type { SharedState } from '../../cluster/shared-state.ts';
import type { ReplayCache } from './replay-cache.ts';

/**
 * A replay cache every instance shares (`--redis-url`): a proof's key is stored once, set-if-absent, and
 * expires when the proof could no longer pass anyway, so a proof accepted by one instance is refused by all.
 */
export class SharedReplayCache implements ReplayCache {
  readonly #state: SharedState;
  readonly #namespace: string;

  /** `namespace` keeps caches apart that were apart in one process (the resource server's, the IdP's). */
  constructor(state: SharedState, namespace: string) {
    this.#state = state;
    this.#namespace = namespace;
  }

  firstUse(key: string, expiresAtMs: number, nowMs: number): Promise<boolean> {
    return this.#state.setIfAbsent(`replay:${this.#namespace}:${key}`, '1', Math.max(1, expiresAtMs - nowMs));
  }
}
