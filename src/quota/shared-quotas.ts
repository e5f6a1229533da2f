import type { SharedState } from '../cluster/shared-state.ts';
import { withSharedLock } from '../cluster/shared-lock.ts';
import { KeyedLock } from '../storage/keyed-lock.ts';
import { wrapWrites } from '../storage/wrap.ts';
import { countedBody } from './counted-body.ts';
import { isStorageError, type DeleteOptions, type PutBody, type PutOptions, type PutResult, type ResourceMeta, type StorageDriver } from '../storage/types.ts';
import { containerBytes, containersToMake, type CountedStorage, type QuotaOptions } from './pod-quotas.ts';
import { measurePodUsage, quotaExceeded, quotaPathOf, readQuotaRecord, writeQuotaRecord } from './record.ts';

/** Holding the record's shared lock longer than this (a dead instance) no longer keeps others from saving it. */
const RECORD_LOCK_MS = 30_000;


/**
 * The counts of one pod in the shared state: `used` (bytes stored) and `claimed` (used plus what writes in
 * flight on any instance hold), `documents` (the part of used kept outside the resource storage), `etag`
 * of the record as an instance last saved it, and `saved`, the `used` it saved then.
 */
function keysOf(podRoot: string) {
  const base = `quota:${podRoot}`;
  return { used: `${base}:used`, claimed: `${base}:claimed`, documents: `${base}:documents`, etag: `${base}:etag`, saved: `${base}:saved` };
}

const count = (text: string | null) => Number(text ?? 0);

/**
 * `withQuotas` for several instances on one storage (`--redis-url`). The limit stays in `.quota.json`
 * (`svc quota set` writes it there); `used` and the space writes in flight hold are counters in the shared
 * state, so a reservation is one atomic bounded add however many instances write into the pod. The record
 * is saved under a shared lock after each write (one save for all the writes queued behind it), so it
 * ends equal to the shared count. When the shared state has no count for a pod (first use, or Redis lost
 * its data) the pod is measured from its files, under that lock, before it is counted again.
 */
export function withSharedQuotas(inner: StorageDriver, shared: SharedState, options: QuotaOptions): CountedStorage {
  const { scope } = options;
  /** The limit of each pod's record by the record's ETag, so an unchanged record is not read again. */
  const limits = new Map<string, { etag: string; limit: number }>();
  const unreadable = new Map<string, string>();
  /** Pods whose count missed a write (the shared state was away when it ended): measured again on next use. */
  const missed = new Set<string>();
  const saves = new KeyedLock();
  const versions = new Map<string, { version: number; saved: number }>();

  /** The pod's limit; null when the pod has no (readable) record, and its writes pass uncounted. */
  async function limitOf(podRoot: string): Promise<number | null> {
    const meta = await inner.head(quotaPathOf(podRoot));
    if (!meta) return null;
    const known = limits.get(podRoot);
    if (known && known.etag === meta.etag) return known.limit;
    let stored: Awaited<ReturnType<typeof readQuotaRecord>>;
    try {
      stored = await readQuotaRecord(inner, podRoot);
    } catch (error) {
      if (unreadable.get(podRoot) !== meta.etag) {
        unreadable.set(podRoot, meta.etag);
        options.log(`quota: ${(error as Error).message}; writes to ${podRoot} are not limited or counted until \`svc quota reconcile\` or \`svc quota set\` rewrites it.`);
      }
      return null;
    }
    if (!stored) return null;
    limits.set(podRoot, { etag: stored.etag, limit: stored.record.limit });
    return stored.record.limit;
  }

  /** Makes sure the shared state counts the pod: measured from the files when it has no count (or one missed a write). */
  async function ensureCounted(podRoot: string): Promise<void> {
    const keys = keysOf(podRoot);
    if (!missed.has(podRoot) && (await shared.get(keys.etag)) !== null) return;
    await withSharedLock(shared, `quota:${podRoot}`, RECORD_LOCK_MS, async () => {
      const recount = missed.has(podRoot);
      if (!recount && (await shared.get(keys.etag)) !== null) return;
      const documents = (await readQuotaRecord(inner, podRoot).catch(() => null))?.record.documents ?? 0;
      const used = (await measurePodUsage(inner, podRoot, scope.outsideOf(podRoot))) + documents;
      const inFlight = recount ? count(await shared.get(keys.claimed)) - count(await shared.get(keys.used)) : 0;
      await shared.set(keys.used, String(used));
      await shared.set(keys.claimed, String(used + Math.max(0, inFlight)));
      await shared.set(keys.saved, String(used));
      await shared.set(keys.documents, String(documents));
      const record = await inner.head(quotaPathOf(podRoot));
      await shared.set(keys.etag, record?.etag ?? '');
      missed.delete(podRoot);
    });
  }

  /** Saves the shared count into the record; an instance's writes queued behind one save share the next. */
  function save(podRoot: string): Promise<void> {
    const state = versions.get(podRoot) ?? { version: 0, saved: 0 };
    versions.set(podRoot, state);
    const wanted = ++state.version;
    return saves.run(podRoot, async () => {
      if (state.saved >= wanted) return;
      const version = state.version;
      await withSharedLock(shared, `quota:${podRoot}`, RECORD_LOCK_MS, async () => {
        const keys = keysOf(podRoot);
        const stored = await readQuotaRecord(inner, podRoot);
        if (!stored) return;
        const savedEtag = await shared.get(keys.etag);
        if (savedEtag !== null && savedEtag !== stored.etag) {
          // Rewritten by `svc quota set` or `reconcile` since an instance saved it: its `used` is the new base.
          const change = stored.record.used - count(await shared.get(keys.saved));
          await shared.add(keys.used, change);
          await shared.add(keys.claimed, change);
          if (change !== 0) await shared.set(keys.documents, String(stored.record.documents ?? 0));
        }
        const used = Math.max(0, count(await shared.get(keys.used)));
        const documents = Math.max(0, count(await shared.get(keys.documents)));
        const etag = await writeQuotaRecord(inner, podRoot, { limit: stored.record.limit, used, documents }, stored.etag);
        if (etag === null) return;
        await shared.set(keys.etag, etag);
        await shared.set(keys.saved, String(used));
      });
      state.saved = version;
    });
  }

  /** A write that failed with `Unavailable` may have landed uncounted: the pod is measured again on next use. */
  function doubtIfUnanswered(podRoot: string, error: unknown): void {
    if (!isStorageError(error, 'Unavailable')) return;
    if (!missed.has(podRoot)) options.log(`quota: ${podRoot} will be measured again: a write ended without an answer from the storage, and may have landed.`);
    missed.add(podRoot);
  }

  /** Counts a finished write (`documents`: of which outside the resource storage); when the shared state cannot take it, the pod is measured again on next use. */
  async function commit(podRoot: string, change: number, held: number, documents = 0): Promise<void> {
    const keys = keysOf(podRoot);
    try {
      if (change !== 0) await shared.add(keys.used, change);
      if (change !== held) await shared.add(keys.claimed, change - held);
      if (documents !== 0) await shared.add(keys.documents, documents);
      if (change !== 0) await save(podRoot);
    } catch (error) {
      missed.add(podRoot);
      options.log(`quota: ${podRoot} will be measured again: a write was not counted (${(error as Error).message}).`);
    }
  }

  /**
   * Claims space for a write: `grow(total)` raises the claim to what a body of `total` bytes replacing
   * `previousSize` bytes adds, with `alongside` bytes on top (containers made on the way); 507 past the limit.
   */
  function claimFor(podRoot: string, limit: number, previousSize: number, alongside: number) {
    const keys = keysOf(podRoot);
    const claim = {
      held: 0,
      async grow(totalSize: number, complete: boolean) {
        const growth = Math.max(0, totalSize - previousSize) + alongside;
        if (growth <= claim.held) return;
        const more = growth - claim.held;
        if ((await shared.add(keys.claimed, more, limit > 0 ? { max: limit } : {})) === null) {
          throw quotaExceeded({ limit, used: count(await shared.get(keys.used)) }, totalSize, complete);
        }
        claim.held = growth;
      },
      async giveBack() {
        if (claim.held > 0) await shared.add(keys.claimed, -claim.held).catch(() => missed.add(podRoot));
      },
    };
    return claim;
  }

  /** The pod a write counts against and its limit; null when the pod has no (readable) record. */
  async function countedTarget(path: string): Promise<{ podRoot: string; limit: number } | null> {
    const podRoot = scope.podOf(path);
    const limit = podRoot ? await limitOf(podRoot) : null;
    if (!podRoot || limit === null) return null;
    await ensureCounted(podRoot);
    return { podRoot, limit };
  }

  const storage = wrapWrites(inner, {
    async put(path: string, body: PutBody, putOptions: PutOptions): Promise<PutResult | null> {
      const target = await countedTarget(path);
      if (!target) return inner.put(path, body, putOptions);
      const { podRoot, limit } = target;
      const current = await inner.head(path);
      const containers = current ? 0 : await containersToMake(inner, scope, podRoot, path);
      const claim = claimFor(podRoot, limit, current && !current.isContainer ? current.size : 0, containers);
      const guarded = await countedBody(body, (size, complete) => claim.grow(size, complete));
      let result: PutResult | null;
      try {
        result = await inner.put(path, guarded, putOptions);
      } catch (error) {
        await claim.giveBack();
        doubtIfUnanswered(podRoot, error);
        throw error;
      }
      const change = result ? result.meta.size - result.previousSize + containerBytes(scope, podRoot, result.createdContainers) : 0;
      await commit(podRoot, change, claim.held);
      return result;
    },

    async createContainer(path: string): Promise<PutResult | null> {
      const target = await countedTarget(path);
      if (!target) return inner.createContainer(path);
      const { podRoot, limit } = target;
      const claim = claimFor(podRoot, limit, 0, await containersToMake(inner, scope, podRoot, path));
      await claim.grow(0, true);
      let result: PutResult | null;
      try {
        result = await inner.createContainer(path);
      } catch (error) {
        await claim.giveBack();
        doubtIfUnanswered(podRoot, error);
        throw error;
      }
      await commit(podRoot, result ? containerBytes(scope, podRoot, [...result.createdContainers, path]) : 0, claim.held);
      return result;
    },

    async delete(path: string, deleteOptions?: DeleteOptions): Promise<ResourceMeta | null> {
      const target = await countedTarget(path);
      let deleted: ResourceMeta | null;
      try {
        deleted = await inner.delete(path, deleteOptions);
      } catch (error) {
        if (target) doubtIfUnanswered(target.podRoot, error);
        throw error;
      }
      if (target && deleted) await commit(target.podRoot, deleted.isContainer ? -containerBytes(scope, target.podRoot, [path]) : -deleted.size, 0);
      return deleted;
    },
  });

  return {
    storage,
    quotas: {
      scope,
      async free(podRoot) {
        const limit = await limitOf(podRoot);
        if (!limit) return null;
        await ensureCounted(podRoot);
        return Math.max(0, limit - count(await shared.get(keysOf(podRoot).claimed)));
      },
      async ensureRoom(podRoot, size) {
        const limit = await limitOf(podRoot);
        if (!limit) return;
        await ensureCounted(podRoot);
        const keys = keysOf(podRoot);
        if (count(await shared.get(keys.claimed)) + size > limit) throw quotaExceeded({ limit, used: count(await shared.get(keys.used)) }, size, true);
      },
      async outside(podRoot, sizes, write) {
        const limit = await limitOf(podRoot);
        if (limit === null) return (await write())?.value ?? null;
        await ensureCounted(podRoot);
        const claim = claimFor(podRoot, limit, sizes.previousSize, 0);
        await claim.grow(sizes.size, true);
        let written: Awaited<ReturnType<typeof write>>;
        try {
          written = await write();
        } catch (error) {
          await claim.giveBack();
          throw error;
        }
        await commit(podRoot, written?.change ?? 0, claim.held, written?.change ?? 0);
        return written?.value ?? null;
      },
      async recount(podRoot) {
        if ((await limitOf(podRoot)) === null) return;
        await ensureCounted(podRoot);
        const keys = keysOf(podRoot);
        await withSharedLock(shared, `quota:${podRoot}`, RECORD_LOCK_MS, async () => {
          const used = (await measurePodUsage(inner, podRoot, scope.outsideOf(podRoot))) + count(await shared.get(keys.documents));
          const change = used - count(await shared.get(keys.used));
          await shared.add(keys.used, change);
          await shared.add(keys.claimed, change);
        });
        await save(podRoot);
      },
    },
  };
}
