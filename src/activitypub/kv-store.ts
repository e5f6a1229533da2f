import type { KvKey, KvStore, KvStoreSetOptions } from '@fedify/fedify';
import { ExpiredRecords } from '../idp/expired-records.ts';
import type { StorageDriver } from '../storage/types.ts';
import { hashName, KV_CONTAINER } from './paths.ts';
import { readRecord, writeRecord } from './records.ts';

interface KvRecord {
  key: KvKey;
  value: unknown;
  /** Milliseconds since the epoch; absent: kept until deleted. */
  expires?: number;
}

/**
 * Fedify's key-value store (public-key cache, activity idempotence) over the server's small state: one
 * JSON record per key, named by the hash of the key, so it survives restarts and lives wherever the
 * server keeps its state.
 */
export class StorageKvStore implements KvStore {
  readonly #storage: StorageDriver;
  readonly #now: () => number;
  /** Records set with a ttl that nobody asks for again (idempotence keys, cached documents) would stay for ever. */
  readonly #expired: ExpiredRecords;

  constructor(storage: StorageDriver, now: () => number, log: (line: string) => void) {
    this.#storage = storage;
    this.#now = now;
    this.#expired = new ExpiredRecords(storage, KV_CONTAINER, now, log, { lifetimeMs: 0, expiryOptional: true });
  }

  async #path(key: KvKey): Promise<string> {
    return KV_CONTAINER + (await hashName(JSON.stringify(key)));
  }

  async get<T = unknown>(key: KvKey): Promise<T | undefined> {
    const path = await this.#path(key);
    const record = await readRecord<KvRecord>(this.#storage, path);
    if (!record) return undefined;
    if (record.value.expires !== undefined && record.value.expires <= this.#now()) {
      await this.#storage.delete(path, { ifMatch: record.etag });
      return undefined;
    }
    return record.value.value as T;
  }

  async set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    const ttl = options?.ttl?.total('millisecond');
    const record: KvRecord = { key, value, ...(ttl !== undefined && { expires: this.#now() + ttl }) };
    await writeRecord(this.#storage, await this.#path(key), record);
    if (ttl !== undefined) await this.#expired.sweepIfDue();
  }

  async delete(key: KvKey): Promise<void> {
    await this.#storage.delete(await this.#path(key));
  }
}
