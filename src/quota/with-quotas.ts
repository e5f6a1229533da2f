import { wrapWrites } from '../storage/wrap.ts';
import { countedBody } from './counted-body.ts';
import type { DeleteOptions, PutBody, PutOptions, PutResult, ResourceMeta, StorageDriver } from '../storage/types.ts';
import { QuotaLedgers, Reservation } from './ledger.ts';
import { isQuotaPath, podRootOfPath } from './record.ts';

export interface QuotaOptions {
  log(line: string): void;
}


/**
 * Wraps a driver so writes under a pod with a `.quota.json` are checked against its limit and counted (see
 * QuotaLedgers). The record itself is not counted. Where the storage recounts the records after an unclean
 * stop, counts are saved by a checkpoint instead of by each write, and `close` saves what is pending.
 */
export function withQuotas(inner: StorageDriver, options: QuotaOptions): StorageDriver {
  const ledgers = new QuotaLedgers(inner, { log: options.log, checkpoint: inner.recountsAfterUncleanStop === true });

  const countedPod = (path: string): string | null => (isQuotaPath(path) ? null : podRootOfPath(path));

  /** Writes to a record (`svc quota set` through the driver, pod creation) make the next access re-read it. */
  const forgetIfRecord = (path: string) => {
    if (isQuotaPath(path)) ledgers.forget(podRootOfPath(path) ?? '');
  };

  const wrapped = wrapWrites(inner, {
    async put(path: string, body: PutBody, putOptions: PutOptions): Promise<PutResult | null> {
      const podRoot = countedPod(path);
      const ledger = podRoot ? await ledgers.load(podRoot) : null;
      if (!podRoot || !ledger) {
        forgetIfRecord(path);
        return inner.put(path, body, putOptions);
      }
      const current = await inner.head(path);
      const reservation = new Reservation(ledger, current && !current.isContainer ? current.size : 0);
      const guarded = await countedBody(body, (size, complete) => reservation.grow(size, complete));
      let result: PutResult | null;
      try {
        result = await inner.put(path, guarded, putOptions);
      } finally {
        reservation.release();
      }
      if (result) await ledgers.commit(podRoot, ledger, result.meta.size - result.previousSize);
      return result;
    },

    async delete(path: string, deleteOptions?: DeleteOptions): Promise<ResourceMeta | null> {
      const podRoot = countedPod(path);
      const ledger = podRoot ? await ledgers.load(podRoot) : null;
      const deleted = await inner.delete(path, deleteOptions);
      forgetIfRecord(path);
      if (podRoot && ledger && deleted && !deleted.isContainer) await ledgers.commit(podRoot, ledger, -deleted.size);
      return deleted;
    },
  });
  return {
    ...wrapped,
    close: async () => {
      await ledgers.flush();
      await inner.close?.();
    },
  };
}
