/**
 * What writers that store outside the resource storage, or behind the driver's back, ask of the quotas: the
 * document database (`/db/`), git (objects and checked-out files), and anything that wants to refuse early.
 * Writes through the counted storage need none of this: the driver wrapper counts them.
 */
import type { StorageDriver } from '../storage/types.ts';
import { CONTAINER_BYTES } from './record.ts';
import type { QuotaScope } from './scope.ts';

export interface PodQuotas {
  readonly scope: QuotaScope;
  /** Bytes the pod may still grow by, writes in flight deducted; null when nothing limits it (no record, or limit 0). */
  free(podRoot: string): Promise<number | null>;
  /** Throws the 507 problem when the pod cannot grow by `size` bytes now (for writers that refuse before they start). */
  ensureRoom(podRoot: string, size: number): Promise<void>;
  /**
   * Counts bytes kept outside the resource storage (documents under `/db/`): reserves what a value of `size`
   * bytes replacing one of `previousSize` adds (throws the 507 problem past the limit), runs `write`, and
   * counts the change it reports; `write` answers null when it stored nothing.
   */
  outside<T>(podRoot: string, sizes: { size: number; previousSize: number }, write: () => Promise<{ value: T; change: number } | null>): Promise<T | null>;
  /** Measures the pod's resources again after something changed them behind the storage driver (a git push). */
  recount(podRoot: string): Promise<void>;
}

export interface CountedStorage {
  /** The driver whose writes are checked against the pod's quota and counted. */
  storage: StorageDriver;
  quotas: PodQuotas;
}

export interface QuotaOptions {
  log(line: string): void;
  scope: QuotaScope;
}

/**
 * What making the containers a new resource (or container) at `path` needs would add: CONTAINER_BYTES for
 * each missing ancestor inside the pod (for a container, itself too). One `head` of the parent when it exists.
 */
export async function containersToMake(storage: StorageDriver, scope: QuotaScope, podRoot: string, path: string): Promise<number> {
  let count = path.endsWith('/') && path !== podRoot ? 1 : 0;
  for (let end = path.lastIndexOf('/', path.length - 2); end > 0; end = path.lastIndexOf('/', end - 1)) {
    const ancestor = path.slice(0, end + 1);
    if (ancestor === podRoot || scope.podOf(ancestor) !== podRoot || (await storage.head(ancestor))) break;
    count += 1;
  }
  return count * CONTAINER_BYTES;
}

/** The bytes a finished write of containers adds: those made on the way that the pod counts (not its own root). */
export function containerBytes(scope: QuotaScope, podRoot: string, containers: readonly string[]): number {
  return containers.filter((container) => container !== podRoot && scope.podOf(container) === podRoot).length * CONTAINER_BYTES;
}
