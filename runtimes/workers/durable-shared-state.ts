/**
 * The shared state as the Durable Object keeps it (see shared-state-object.ts). A Durable Object runs one
 * call at a time between awaits and every operation here is synchronous SQL, so each is atomic without
 * further locking. Counters and keys live in the object's SQLite storage, so they survive the object being
 * evicted (quota counts, replay caches, channels); locks and listeners live in its memory, which an eviction
 * clears: a lock is then free early, and callers guard their writes with a compare-and-swap anyway.
 */
import type { SqlStorage } from 'cloudflare:workers';
import { SharedStateUnavailable, type SharedState } from '../../src/cluster/shared-state.ts';

/** How long a caller waits for a lock held by others before giving up with 503 (as with Redis). */
export const LOCK_WAIT_MS = 30_000;

/** Expired entries are deleted at most this often (reads skip them in between). */
const SWEEP_INTERVAL_MS = 10_000;

interface Entry extends Record<string, string | number | null> {
  value: string;
  expires_at: number | null;
}

interface HeldLock {
  token: string;
  expiresAt: number;
}

const expiryOf = (now: number, ttlMs: number | undefined) => (ttlMs === undefined ? null : now + Math.max(1, Math.ceil(ttlMs)));

export class DurableSharedState implements SharedState {
  readonly #sql: SqlStorage;
  readonly #now: () => number;
  #sweptAt = 0;
  readonly #locks = new Map<string, HeldLock>();
  /** Callers waiting for a lock, woken when it is released (each then tries again). */
  readonly #waiting = new Map<string, Set<() => void>>();
  readonly #listeners = new Map<string, Set<(message: string) => void>>();

  constructor(sql: SqlStorage, now: () => number = Date.now) {
    this.#sql = sql;
    this.#now = now;
    sql.exec('CREATE TABLE IF NOT EXISTS shared_entries (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER)');
    sql.exec('CREATE INDEX IF NOT EXISTS shared_entries_expiry ON shared_entries (expires_at) WHERE expires_at IS NOT NULL');
  }

  #read(key: string, now: number): Entry | null {
    const rows = this.#sql.exec<Entry>('SELECT value, expires_at FROM shared_entries WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)', key, now).toArray();
    return rows[0] ?? null;
  }

  #write(key: string, value: string, expiresAt: number | null): void {
    this.#sql.exec('INSERT INTO shared_entries (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at', key, value, expiresAt);
  }

  #sweep(now: number): void {
    if (now - this.#sweptAt < SWEEP_INTERVAL_MS) return;
    this.#sweptAt = now;
    this.#sql.exec('DELETE FROM shared_entries WHERE expires_at <= ?', now);
  }

  async add(key: string, amount: number, options: { ttlMs?: number; max?: number } = {}): Promise<{ value: number; ttlMs: number | null } | null> {
    const now = this.#now();
    this.#sweep(now);
    const entry = this.#read(key, now);
    const current = entry ? Number(entry.value) : 0;
    if (options.max !== undefined && amount > 0 && current + amount > options.max) return null;
    const value = current + amount;
    let expiresAt = entry?.expires_at ?? null;
    if (options.ttlMs !== undefined) {
      if (value <= 0) {
        this.#sql.exec('DELETE FROM shared_entries WHERE key = ?', key);
        return { value, ttlMs: null };
      }
      expiresAt ??= expiryOf(now, options.ttlMs);
    }
    this.#write(key, String(value), expiresAt);
    return { value, ttlMs: expiresAt === null ? null : expiresAt - now };
  }

  async setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean> {
    const now = this.#now();
    this.#sweep(now);
    if (this.#read(key, now)) return false;
    this.#write(key, value, expiryOf(now, ttlMs));
    return true;
  }

  async get(key: string): Promise<string | null> {
    return this.#read(key, this.#now())?.value ?? null;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    const now = this.#now();
    this.#sweep(now);
    this.#write(key, value, expiryOf(now, ttlMs));
  }

  /** Takes the lock at `key` for `ttlMs`, waiting up to `waitMs` for its holder; the holder's token, or null when the wait ran out. */
  async acquire(key: string, ttlMs: number, waitMs: number): Promise<string | null> {
    const giveUpAt = this.#now() + waitMs;
    for (;;) {
      const now = this.#now();
      const held = this.#locks.get(key);
      if (!held || held.expiresAt <= now) {
        const token = crypto.randomUUID();
        this.#locks.set(key, { token, expiresAt: now + ttlMs });
        return token;
      }
      if (now >= giveUpAt) return null;
      await this.#released(key, Math.min(giveUpAt, held.expiresAt) - now);
    }
  }

  /** Waits until the lock at `key` is released or `ms` pass (its holder's expiry, or the end of the wait). */
  #released(key: string, ms: number): Promise<void> {
    let waiters = this.#waiting.get(key);
    if (!waiters) this.#waiting.set(key, (waiters = new Set()));
    const all = waiters;
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        all.delete(wake);
        if (all.size === 0 && this.#waiting.get(key) === all) this.#waiting.delete(key);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      all.add(wake);
    });
  }

  /** Frees the lock if `token` still holds it (it may have expired and gone to another). */
  release(key: string, token: string): void {
    if (this.#locks.get(key)?.token !== token) return;
    this.#locks.delete(key);
    for (const wake of [...(this.#waiting.get(key) ?? [])]) wake();
  }

  async lock(key: string, ttlMs: number): Promise<() => Promise<void>> {
    const token = await this.acquire(key, ttlMs, LOCK_WAIT_MS);
    if (token === null) throw new SharedStateUnavailable(`The shared lock ${key} stayed taken for ${LOCK_WAIT_MS / 1000} s.`);
    return async () => this.release(key, token);
  }

  async publish(channel: string, message: string): Promise<void> {
    for (const listener of this.#listeners.get(channel) ?? []) listener(message);
  }

  async subscribe(channel: string, listener: (message: string) => void): Promise<void> {
    let listeners = this.#listeners.get(channel);
    if (!listeners) this.#listeners.set(channel, (listeners = new Set()));
    listeners.add(listener);
  }

  async close(): Promise<void> {}
}
