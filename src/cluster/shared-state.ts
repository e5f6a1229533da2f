/**
 * What several instances of the server share when they serve one set of pods (`--redis-url`): the small
 * operations the core needs, each atomic across instances. A runtime supplies it as `Platform.sharedState`;
 * without it every piece of cross-request state stays in the process, as it always was.
 */
export interface SharedState {
  /**
   * Adds `amount` to the counter at `key` (absent counts as 0) and returns its new value. With `ttlMs`, a
   * counter that had no expiry gets one (a window that starts at its first hit), and one taken to 0 or
   * below is forgotten. With `max`, an increase that would take the value past `max` is not made: the
   * answer is then null. `ttlMs` of the answer is what remains of the counter's life (null: no expiry).
   */
  add(key: string, amount: number, options?: { ttlMs?: number; max?: number }): Promise<{ value: number; ttlMs: number | null } | null>;
  /** Stores `value` at `key` unless the key exists; true when it was stored. With `ttlMs` it expires. */
  setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /**
   * Waits until it holds the lock at `key` and returns its release. The lock expires after `ttlMs`, so a
   * holder that died does not block the others for ever; callers still guard their writes with a
   * compare-and-swap (an ETag), which is what keeps a holder whose lock expired from writing over another.
   */
  lock(key: string, ttlMs: number): Promise<() => Promise<void>>;
  /** Sends `message` to every instance's listeners of `channel`, this one's included. */
  publish(channel: string, message: string): Promise<void>;
  /**
   * Calls `listener` with each message published on `channel` from now on. Rejects where `hearsOthers` is
   * false: nothing would ever arrive.
   */
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  /**
   * False where this instance cannot hear messages at all: a Cloudflare Workers isolate owns no connection
   * between requests, so what other isolates publish reaches only the Durable Object behind the shared state
   * (which holds the WebSockets). Such an instance only sends, and learns of other instances' work by asking
   * the shared state or the storage when it needs to. Absent: true.
   */
  readonly hearsOthers?: boolean;
  close(): Promise<void>;
}

/** How long clients are asked to wait when the shared store does not answer. */
export const SHARED_STATE_RETRY_AFTER_SECONDS = 2;

/**
 * Thrown by a SharedState that cannot reach its store. A request that needs it is answered 503 with
 * Retry-After (see http/errors.ts); nothing it would have written is written.
 */
export class SharedStateUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SharedStateUnavailable';
  }
}
