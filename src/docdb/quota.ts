import { quotaExceeded, readQuotaRecord, writeQuotaRecord } from '../quota/record.ts';
import type { StorageDriver } from '../storage/types.ts';

/**
 * Documents count against their pod's quota record (`/<user>/.quota.json`) like files. The record is read
 * before a write and changed after it with If-Match, the way `svc quota` changes it, so the storage's own
 * quota ledger (src/quota/with-quotas.ts) takes the change in on its next write instead of writing over it.
 */
export class DocumentQuota {
  readonly #storage: StorageDriver;
  readonly #log: (line: string) => void;

  constructor(storage: StorageDriver, log: (line: string) => void) {
    this.#storage = storage;
    this.#log = log;
  }

  /** Throws the 507 problem when growing the pod by `growth` bytes would pass its limit (a document of `size` bytes). */
  async check(podRoot: string, growth: number, size: number): Promise<void> {
    if (growth <= 0) return;
    // An unreadable record limits nothing, as for files (see withQuotas).
    const stored = await readQuotaRecord(this.#storage, podRoot).catch(() => null);
    if (!stored || stored.record.limit === 0) return;
    if (stored.record.used + growth > stored.record.limit) throw quotaExceeded(stored.record, size, true);
  }

  /** Adds `change` bytes (negative: frees them) to the pod's record. */
  async count(podRoot: string, change: number): Promise<void> {
    if (change === 0) return;
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        const stored = await readQuotaRecord(this.#storage, podRoot);
        if (!stored) return;
        const used = Math.max(0, stored.record.used + change);
        if ((await writeQuotaRecord(this.#storage, podRoot, { limit: stored.record.limit, used }, stored.etag)) !== null) return;
      }
      this.#log(`docdb: the quota record of ${podRoot} kept changing; ${change} bytes were not counted (\`svc quota reconcile\` does not see documents).`);
    } catch (error) {
      this.#log(`docdb: could not count ${change} bytes in the quota record of ${podRoot}: ${(error as Error).message}`);
    }
  }
}
