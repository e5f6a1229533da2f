import { isStorageError, type StorageDriver } from '../storage/types.ts';

/** Records read or deleted per call at most: an account page shows no more, and a request does no more. */
export const LISTING_BUDGET = 200;
const ID = /^[A-Za-z0-9_-]{1,100}$/;

/** A record as stored, with the ETag a compare-and-swap replaces it by. */
export interface Stored<T> {
  value: T;
  etag: string;
}

/**
 * Small records that belong to one account (its browser sessions, its apps' authorizations), a folder per
 * account: `<container><account id>/<id>.json`, so an account's are listed without reading anyone else's.
 * Each has an `expires` (milliseconds since the epoch) at most `lifetimeMs` after its last write; an expired
 * one counts as absent. Making a record deletes the account's records last written a lifetime ago (known
 * expired from the listing alone, unread), and a listing deletes the expired ones it reads.
 */
export class AccountRecords<T extends { expires: number }> {
  readonly #storage: StorageDriver;
  readonly #container: string;
  readonly #now: () => number;
  readonly #lifetimeMs: number;

  constructor(storage: StorageDriver, container: string, now: () => number, lifetimeMs: number) {
    this.#storage = storage;
    this.#container = container;
    this.#now = now;
    this.#lifetimeMs = lifetimeMs;
  }

  #path(accountId: string, id: string): string | null {
    return ID.test(accountId) && ID.test(id) ? `${this.#container}${accountId}/${id}.json` : null;
  }

  /** Writes a new record; false when one has the id already. */
  async create(accountId: string, id: string, value: T): Promise<boolean> {
    const path = this.#path(accountId, id);
    if (!path) throw new Error(`not a record id: ${accountId}/${id}`);
    for (const old of await this.#ids(accountId, true)) await this.delete(accountId, old);
    return (await this.#storage.put(path, JSON.stringify(value), { contentType: 'application/json', ifNoneMatch: '*' })) !== null;
  }

  /** The live record; null when unknown, malformed or expired. */
  async get(accountId: string, id: string): Promise<Stored<T> | null> {
    const path = this.#path(accountId, id);
    const stored = path ? await this.#storage.get(path) : null;
    if (!stored) return null;
    let value: T;
    try {
      value = JSON.parse(await new Response(stored.body).text()) as T;
    } catch {
      return null;
    }
    return typeof value?.expires === 'number' && value.expires > this.#now() ? { value, etag: stored.meta.etag } : null;
  }

  /** Replaces the record read with `etag`; false when it changed or went meanwhile. */
  async replace(accountId: string, id: string, value: T, etag: string): Promise<boolean> {
    const path = this.#path(accountId, id);
    return path !== null && (await this.#storage.put(path, JSON.stringify(value), { contentType: 'application/json', ifMatch: etag })) !== null;
  }

  /** Deletes the record; false when there was none. */
  async delete(accountId: string, id: string): Promise<boolean> {
    const path = this.#path(accountId, id);
    return path !== null && (await this.#storage.delete(path)) !== null;
  }

  /** The account's live records (at most LISTING_BUDGET are read), deleting the expired ones it reads. */
  async list(accountId: string): Promise<{ id: string; value: T }[]> {
    const found: { id: string; value: T }[] = [];
    for (const id of await this.#ids(accountId)) {
      const record = await this.get(accountId, id);
      if (record) found.push({ id, value: record.value });
      else await this.delete(accountId, id);
    }
    return found;
  }

  /** Deletes the account's records (at most LISTING_BUDGET; later listings and new records drop the rest). */
  async deleteAll(accountId: string): Promise<void> {
    for (const id of await this.#ids(accountId)) await this.delete(accountId, id);
  }

  /** Ids of the account's records (only those last written a lifetime ago, with `expiredOnly`). */
  async #ids(accountId: string, expiredOnly = false): Promise<string[]> {
    if (!ID.test(accountId)) return [];
    const folder = `${this.#container}${accountId}/`;
    const ids: string[] = [];
    try {
      for await (const member of this.#storage.list(folder)) {
        if (ids.length >= LISTING_BUDGET) break;
        const name = member.path.slice(folder.length);
        if (expiredOnly && member.modified + this.#lifetimeMs > this.#now()) continue;
        if (!member.isContainer && name.endsWith('.json')) ids.push(name.slice(0, -'.json'.length));
      }
    } catch (error) {
      if (isStorageError(error, 'NotFound')) return [];
      throw error;
    }
    return ids;
  }
}
