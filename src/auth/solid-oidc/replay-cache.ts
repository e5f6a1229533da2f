/**
 * Where the `jti` of every accepted DPoP proof is remembered until the proof could no longer pass the `iat`
 * check, so each proof is used once. An interface, so instances can share one store (Redis) later.
 */
export interface ReplayCache {
  /** True the first time `key` is offered before `expiresAtMs`; false when it was seen, or cannot be vouched for. */
  firstUse(key: string, expiresAtMs: number, nowMs: number): Promise<boolean>;
}

/**
 * The in-process replay cache: bounded, entries dropped once expired. When it is full the oldest entry
 * is forgotten, and from then on every key that would expire no later than the forgotten one is refused
 * (its proof is old enough that it might be a replay of a forgotten one), so a full cache never lets a
 * replay through; it refuses old proofs instead.
 */
export class MemoryReplayCache implements ReplayCache {
  readonly #expiries = new Map<string, number>();
  readonly #maxEntries: number;
  #forgottenUntil = 0;

  constructor(maxEntries = 100_000) {
    this.#maxEntries = maxEntries;
  }

  async firstUse(key: string, expiresAtMs: number, nowMs: number): Promise<boolean> {
    this.#dropExpired(nowMs);
    const seen = this.#expiries.get(key);
    if ((seen !== undefined && seen > nowMs) || expiresAtMs <= this.#forgottenUntil) return false;
    this.#expiries.delete(key);
    this.#expiries.set(key, expiresAtMs);
    for (const [oldest, expiry] of this.#expiries) {
      if (this.#expiries.size <= this.#maxEntries) break;
      this.#expiries.delete(oldest);
      this.#forgottenUntil = Math.max(this.#forgottenUntil, expiry);
    }
    return true;
  }

  get size(): number {
    return this.#expiries.size;
  }

  /** Entries are kept in insertion order, which is close to expiry order: drop from the front while expired. */
  #dropExpired(nowMs: number): void {
    for (const [key, expiry] of this.#expiries) {
      if (expiry > nowMs) break;
      this.#expiries.delete(key);
    }
  }
}
