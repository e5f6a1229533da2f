import { wrapWrites } from '../storage/wrap.ts';
import { countedBody } from './counted-body.ts';
import { isStorageError, type DeleteOptions, type PutBody, type PutOptions, type PutResult, type ResourceMeta, type StorageDriver } from '../storage/types.ts';
import { QuotaLedgers, Reservation } from './ledger.ts';
import { containerBytes, containersToMake, type CountedStorage, type QuotaOptions } from './pod-quotas.ts';
import { isQuotaPath, measurePodUsage, quotaExceeded } from './record.ts';

export type { QuotaOptions } from './pod-quotas.ts';

/**
 * Wraps a driver so writes under a pod with a `.quota.json` are checked against its limit and counted (see
 * QuotaLedgers): resources by their size, containers by CONTAINER_BYTES. The record itself is not counted.
 * Where the storage recounts the records after an unclean stop, counts are saved by a checkpoint instead of
 * by each write, and `close` saves what is pending.
 */
export function withQuotas(inner: StorageDriver, options: QuotaOptions): CountedStorage {
  const { scope } = options;
  const measure = (podRoot: string) => measurePodUsage(inner, podRoot, scope.outsideOf(podRoot));
  const ledgers = new QuotaLedgers(inner, { log: options.log, checkpoint: inner.recountsAfterUncleanStop === true, measure });

  /** A write that failed with `Unavailable` may have landed uncounted: the pod is measured again. */
  const doubtIfUnanswered = (podRoot: string, error: unknown) => {
    if (isStorageError(error, 'Unavailable')) ledgers.doubt(podRoot);
  };

  /** Writes to a record (`svc quota set` through the driver, pod creation) make the next access re-read it. */
  const forgetIfRecord = (path: string) => {
    if (isQuotaPath(path)) ledgers.forget(path.slice(0, path.lastIndexOf('/') + 1));
  };

  const wrapped = wrapWrites(inner, {
    async put(path: string, body: PutBody, putOptions: PutOptions): Promise<PutResult | null> {
      const podRoot = scope.podOf(path);
      const ledger = podRoot ? await ledgers.load(podRoot) : null;
      if (!podRoot || !ledger) {
        forgetIfRecord(path);
        return inner.put(path, body, putOptions);
      }
      const current = await inner.head(path);
      const containers = current ? 0 : await containersToMake(inner, scope, podRoot, path);
      const reservation = new Reservation(ledger, current && !current.isContainer ? current.size : 0, containers);
      const guarded = await countedBody(body, (size, complete) => reservation.grow(size, complete));
      let result: PutResult | null;
      try {
        result = await inner.put(path, guarded, putOptions);
      } catch (error) {
        doubtIfUnanswered(podRoot, error);
        throw error;
      } finally {
        reservation.release();
      }
      if (result) await ledgers.commit(podRoot, ledger, result.meta.size - result.previousSize + containerBytes(scope, podRoot, result.createdContainers));
      return result;
    },

    async createContainer(path: string): Promise<PutResult | null> {
      const podRoot = scope.podOf(path);
      const ledger = podRoot ? await ledgers.load(podRoot) : null;
      if (!podRoot || !ledger) return inner.createContainer(path);
      const reservation = new Reservation(ledger, 0, await containersToMake(inner, scope, podRoot, path));
      reservation.grow(0, true);
      let result: PutResult | null;
      try {
        result = await inner.createContainer(path);
      } catch (error) {
        doubtIfUnanswered(podRoot, error);
        throw error;
      } finally {
        reservation.release();
      }
      if (result) await ledgers.commit(podRoot, ledger, containerBytes(scope, podRoot, [...result.createdContainers, path]));
      return result;
    },

    async delete(path: string, deleteOptions?: DeleteOptions): Promise<ResourceMeta | null> {
      const podRoot = scope.podOf(path);
      const ledger = podRoot ? await ledgers.load(podRoot) : null;
      let deleted: ResourceMeta | null;
      try {
        deleted = await inner.delete(path, deleteOptions);
      } catch (error) {
        if (podRoot && ledger) doubtIfUnanswered(podRoot, error);
        throw error;
      }
      forgetIfRecord(path);
      if (podRoot && ledger && deleted) await ledgers.commit(podRoot, ledger, deleted.isContainer ? -containerBytes(scope, podRoot, [path]) : -deleted.size);
      return deleted;
    },
  });
  return {
    storage: {
      ...wrapped,
      close: async () => {
        await ledgers.flush();
        await inner.close?.();
      },
    },
    quotas: {
      scope,
      async free(podRoot) {
        const ledger = await ledgers.load(podRoot);
        if (!ledger || ledger.limit === 0) return null;
        return Math.max(0, ledger.limit - ledger.used - ledger.reserved);
      },
      async ensureRoom(podRoot, size) {
        const ledger = await ledgers.load(podRoot);
        if (ledger && ledger.limit > 0 && ledger.used + ledger.reserved + size > ledger.limit) throw quotaExceeded(ledger, size, true);
      },
      async outside(podRoot, sizes, write) {
        const ledger = await ledgers.load(podRoot);
        if (!ledger) return (await write())?.value ?? null;
        const reservation = new Reservation(ledger, sizes.previousSize);
        reservation.grow(sizes.size, true);
        let written: Awaited<ReturnType<typeof write>>;
        try {
          written = await write();
        } finally {
          reservation.release();
        }
        if (!written) return null;
        await ledgers.commit(podRoot, ledger, written.change, written.change);
        return written.value;
      },
      async recount(podRoot) {
        const ledger = await ledgers.load(podRoot);
        if (ledger) await ledgers.recount(podRoot, ledger, () => measure(podRoot));
      },
    },
  };
}
