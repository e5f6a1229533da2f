import { wrapWrites } from '../storage/wrap.ts';
import type { DeleteOptions, PutBody, PutOptions, StorageDriver } from '../storage/types.ts';
import type { SharedState } from './shared-state.ts';
import { withSharedLock } from './shared-lock.ts';

/** A conditional write holding the lock longer than this (a dead instance) no longer keeps others out. */
const WRITE_LOCK_MS = 30_000;

/**
 * A driver's conditional writes made atomic across instances (`--redis-url`): the fs driver checks and
 * replaces under a lock of its own process only, so two instances could both see the old ETag and both
 * write. Conditional writes of one path take turns through a shared lock. Create-only writes need none
 * where the driver makes them atomic across processes by itself (`crossProcessCreateOnly`: the fs driver's
 * `link`; `crossProcessAtomic`: R2, S3 conditional puts); where it does not (an S3 endpoint without
 * conditional writes), they and container creations take the lock too. Unconditional writes never do.
 */
export function withSharedPreconditions(inner: StorageDriver, shared: SharedState): StorageDriver {
  const locked = <T>(path: string, task: () => Promise<T>) => withSharedLock(shared, `write:${path}`, WRITE_LOCK_MS, task);
  const atomic = inner.capabilities.crossProcessAtomic || inner.capabilities.crossProcessCreateOnly === true;
  const wrapped = wrapWrites(inner, {
    put: (path: string, body: PutBody, options: PutOptions) =>
      options.ifMatch !== undefined || (!atomic && options.ifNoneMatch !== undefined) ? locked(path, () => inner.put(path, body, options)) : inner.put(path, body, options),
    delete: (path: string, options?: DeleteOptions) => (options?.ifMatch === undefined ? inner.delete(path, options) : locked(path, () => inner.delete(path, options))),
  });
  return atomic ? wrapped : { ...wrapped, createContainer: (path) => locked(path, () => inner.createContainer(path)) };
}
