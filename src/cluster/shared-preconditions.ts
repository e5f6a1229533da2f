import { wrapWrites } from '../storage/wrap.ts';
import type { DeleteOptions, PutBody, PutOptions, StorageDriver } from '../storage/types.ts';
import type { SharedState } from './shared-state.ts';
import { withSharedLock } from './shared-lock.ts';

/** A conditional write holding the lock longer than this (a dead instance) no longer keeps others out. */
const WRITE_LOCK_MS = 30_000;

/**
 * A driver's `ifMatch` compare-and-swap made atomic across instances (`--redis-url`): the fs driver checks
 * and replaces under a lock of its own process only, so two instances could both see the old ETag and both
 * write. Conditional writes of one path take turns through a shared lock; create-only writes need none
 * (the driver's `link` is atomic on the file system itself), nor do unconditional ones.
 */
export function withSharedPreconditions(inner: StorageDriver, shared: SharedState): StorageDriver {
  return wrapWrites(inner, {
    put: (path: string, body: PutBody, options: PutOptions) =>
      options.ifMatch === undefined ? inner.put(path, body, options) : withSharedLock(shared, `write:${path}`, WRITE_LOCK_MS, () => inner.put(path, body, options)),
    delete: (path: string, options?: DeleteOptions) =>
      options?.ifMatch === undefined ? inner.delete(path, options) : withSharedLock(shared, `write:${path}`, WRITE_LOCK_MS, () => inner.delete(path, options)),
  });
}
