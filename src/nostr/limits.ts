/** What one relay client may ask of the server; NIP-11 advertises these (see info.ts). */
export interface RelayLimits {
  /** Bytes of one incoming message (UTF-8); the runtimes' WebSocket frame limit is the same 64 KiB. */
  maxMessageLength: number;
  /** Open subscriptions per connection. */
  maxSubscriptions: number;
  /**
   * Bytes (UTF-8) of the REQ messages of one connection's open subscriptions together: what a connection
   * holds, and what Workers store again (`SocketLike.remember`) at each REQ and CLOSE.
   */
  maxSubscriptionBytes: number;
  /** Filters in one REQ. */
  maxFilters: number;
  /** Values in one filter list (`ids`, `authors`, `kinds`, `#x`). */
  maxFilterValues: number;
  /** Larger `limit`s are clamped to this. */
  maxLimit: number;
  maxSubidLength: number;
  maxEventTags: number;
  /** How far `created_at` may lie ahead of the server's clock. */
  maxFutureSeconds: number;
  /** Events accepted per connection per second (a burst of as many is allowed); 0 = no limit. */
  eventsPerSecond: number;
}

export const DEFAULT_RELAY_LIMITS: Omit<RelayLimits, 'eventsPerSecond'> = {
  maxMessageLength: 64 * 1024,
  maxSubscriptions: 20,
  // 20 full-size REQs would be 1.3 MB, rewritten at every REQ and CLOSE, near Cloudflare's 2 MB row limit.
  maxSubscriptionBytes: 256 * 1024,
  maxFilters: 10,
  maxFilterValues: 1000,
  maxLimit: 500,
  maxSubidLength: 64,
  maxEventTags: 2000,
  maxFutureSeconds: 15 * 60,
};

/** What all connections of the relay together may hold; NIP-11 has no field for these. */
export interface RelayTotals {
  /** Filters of all open subscriptions: each event is matched against every one of them. */
  maxFilters: number;
  /** Characters of the REQ messages behind the open subscriptions (what their filters hold in memory). */
  maxFilterBytes: number;
  /** Events accepted but not yet delivered to every connection; publishers wait (their `OK` comes later) past it. */
  maxPendingDeliveries: number;
  /** Work in one turn of the event loop, all connections together: filters matched, messages sent (SEND_WORK), signatures checked (VERIFY_WORK). */
  workPerTurn: number;
}

export const DEFAULT_RELAY_TOTALS: RelayTotals = {
  maxFilters: 20_000,
  maxFilterBytes: 16 * 1024 * 1024,
  maxPendingDeliveries: 1000,
  workPerTurn: 5000,
};

/** A message sent costs about as much as this many filters matched (each ~0.4 µs on the 2-core machine of docs/benchmarks.md)... */
export const SEND_WORK = 20;
/** ...plus one more for every this many characters it holds (the runtime copies them). */
export const SEND_BYTES_PER_WORK = 256;
/** A signature check (id hash and BIP-340, ~2–4 ms there) costs about as much as this many filters matched. */
export const VERIFY_WORK = 2500;

/** A token bucket: `rate` tokens a second, holding at most `rate`, so a client may burst one second's worth. */
export class TokenBucket {
  readonly #rate: number;
  readonly #now: () => number;
  #tokens: number;
  #updated: number;

  constructor(rate: number, now: () => number) {
    this.#rate = rate;
    this.#now = now;
    this.#tokens = rate;
    this.#updated = now();
  }

  /** Takes a token if there is one. */
  take(): boolean {
    const now = this.#now();
    this.#tokens = Math.min(this.#rate, this.#tokens + ((now - this.#updated) / 1000) * this.#rate);
    this.#updated = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
