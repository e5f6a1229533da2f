import { BoundedCache } from '../storage/bounded-cache.ts';
import { isStorageError, type ResourceMeta, type StorageDriver } from '../storage/types.ts';

/** Records read per pass at most, so the request that starts a pass pays for a few reads, never a whole container. */
export const SWEEP_BUDGET = 50;
/** How long a store waits before sweeping a container again, once a pass has reached its end. */
export const SWEEP_INTERVAL_MS = 10 * 60 * 1000;
/** Larger members are none of the small JSON records swept here: left alone, unread. */
const MAX_RECORD_BYTES = 64 * 1024;
/** Paths of malformed records already logged, so each is logged once while the server runs. */
const REPORTED_PATHS = 1000;

export interface SweepOptions {
  /**
   * How long after it is written a record expires: younger members cannot have expired and are not read.
   * 0 where records live for different times (every member is read).
   */
  lifetimeMs: number;
  /** True where a record without `expires` is kept until deleted (not malformed, never reported). */
  expiryOptional?: boolean;
  budget?: number;
  intervalMs?: number;
}

export interface SweepPass {
  /** Records read in this pass. */
  read: number;
  deleted: number;
  /** True when the pass reached the end of the container; false when its budget ran out first. */
  finished: boolean;
}

/**
 * Deletes the expired records of one container: JSON objects whose `expires` (milliseconds since the epoch)
 * is past. Each record is written once, when it is issued, so a member modified less than a lifetime ago is
 * skipped unread. A pass reads at most `budget` records, in path order after where the last pass stopped (one
 * listing serves the passes until its members are all read), and deletes with `ifMatch` on the ETag it read,
 * so a record changed meanwhile stays. Members that are no such record (containers, other data, malformed
 * JSON) are never deleted.
 */
export class ExpiredRecords {
  readonly #storage: StorageDriver;
  readonly #container: string;
  readonly #now: () => number;
  readonly #log: (line: string) => void;
  readonly #lifetimeMs: number;
  readonly #budget: number;
  readonly #intervalMs: number;
  readonly #expiryOptional: boolean;
  readonly #reported = new BoundedCache<string, true>(REPORTED_PATHS);
  /** What the last listing found and no pass has read yet: a pass lists the container only when this is empty. */
  #pending: string[] = [];
  /** How many of `pending` passes have read. */
  #done = 0;
  #nextPassAt = 0;

  constructor(storage: StorageDriver, container: string, now: () => number, log: (line: string) => void, options: SweepOptions) {
    this.#storage = storage;
    this.#container = container;
    this.#now = now;
    this.#log = log;
    this.#lifetimeMs = options.lifetimeMs;
    this.#budget = options.budget ?? SWEEP_BUDGET;
    this.#intervalMs = options.intervalMs ?? SWEEP_INTERVAL_MS;
    this.#expiryOptional = options.expiryOptional ?? false;
  }

  /**
   * What a store calls after writing a new record: a pass when one is due, else nothing. A pass is due an
   * interval after the last one that finished, and at once after one whose budget ran out. A failed pass
   * is logged, never thrown: the write that started it succeeded.
   */
  async sweepIfDue(): Promise<void> {
    if (this.#now() < this.#nextPassAt) return;
    // Set before the pass, so concurrent writes here do not start a second one.
    this.#nextPassAt = this.#now() + this.#intervalMs;
    try {
      if (!(await this.sweep()).finished) this.#nextPassAt = 0;
    } catch (error) {
      this.#log(`expired records: sweeping ${this.#container} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * One pass: the members the last listing found and no pass has read yet, or a new listing when none are
   * left. A backlog of expired records is so worked off over several passes with one listing, not one each.
   */
  async sweep(): Promise<SweepPass> {
    if (this.#done === this.#pending.length) {
      this.#pending = await this.#candidates();
      this.#done = 0;
    }
    const pass: SweepPass = { read: 0, deleted: 0, finished: true };
    while (this.#done < this.#pending.length) {
      if (pass.read === this.#budget) {
        pass.finished = false;
        return pass;
      }
      pass.read++;
      if (await this.#deleteIfExpired(this.#pending[this.#done++]!)) pass.deleted++;
    }
    return pass;
  }

  /** Members old enough to have expired, in path order. */
  async #candidates(): Promise<string[]> {
    const oldEnough = (member: ResourceMeta) => !member.isContainer && (this.#lifetimeMs === 0 || member.modified + this.#lifetimeMs <= this.#now());
    const paths: string[] = [];
    try {
      for await (const member of this.#storage.list(this.#container)) if (oldEnough(member)) paths.push(member.path);
    } catch (error) {
      if (isStorageError(error, 'NotFound')) return [];
      throw error;
    }
    return paths.sort();
  }

  async #deleteIfExpired(path: string): Promise<boolean> {
    const stored = await this.#storage.get(path);
    if (!stored) return false;
    if (stored.meta.size > MAX_RECORD_BYTES) {
      await stored.body.cancel();
      this.#reportMalformed(path, 'it is too large');
      return false;
    }
    const record = recordOf(await new Response(stored.body).text());
    if (!record || (record.expires === undefined && !this.#expiryOptional)) {
      this.#reportMalformed(path, 'it is not a JSON object with a numeric "expires"');
      return false;
    }
    if (record.expires === undefined || record.expires > this.#now()) return false;
    return (await this.#storage.delete(path, { ifMatch: stored.meta.etag })) !== null;
  }

  #reportMalformed(path: string, why: string): void {
    if (this.#reported.get(path)) return;
    this.#reported.set(path, true);
    this.#log(`expired records: ${path} is left alone: ${why}`);
  }
}

/** The record's expiry: `expires` absent is undefined; null for anything but a JSON object with a numeric or no `expires`. */
function recordOf(text: string): { expires?: number } | null {
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof record !== 'object' || record === null) return null;
  const { expires } = record as { expires?: unknown };
  if (expires === undefined) return {};
  return typeof expires === 'number' && Number.isFinite(expires) ? { expires } : null;
}
