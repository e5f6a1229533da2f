import type { BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { StorageError, type ResourceMeta } from '../src/storage/types.ts';
import type { BlockingCalls } from './fs-blocking.ts';
import { metaFromStats, readMembers, statOf, statOfSync } from './fs-entries.ts';
import { ListingCache, type DirectoryVersion, type ListingWrite } from './fs-listing-cache.ts';

/**
 * The fs driver's container listings: read from the disk, cached (ListingCache), and updated in place by the
 * driver's own writes to files, so the listing after such a write needs no directory scan. Where other
 * servers write into the same directory (`inPlace` false), their writes are only seen by the directory's
 * version, so every write through this one marks its listings stale and the next listing scans again.
 */
export class FsListings {
  readonly #cache: ListingCache;
  readonly #root: string;
  readonly #blocking: BlockingCalls;
  readonly #inPlace: boolean;
  readonly #revalidateAfterMs: number;

  constructor(root: string, blocking: BlockingCalls, options: { maxBytes: number; inPlace: boolean; revalidateAfterMs: number }) {
    this.#cache = new ListingCache(options.maxBytes);
    this.#root = root;
    this.#blocking = blocking;
    this.#inPlace = options.inPlace;
    this.#revalidateAfterMs = options.revalidateAfterMs;
  }

  /** A write to `path` changes the listings of its ancestors (and its own, for a container): scanned again. */
  invalidate(path: string): void {
    this.#cache.invalidate(path);
  }

  invalidateUnder(container: string): void {
    this.#cache.invalidateUnder(container);
  }

  /** The container's own metadata, when its directory was seen recently (see ListingCache.recentMeta). */
  recentMeta(container: string): ResourceMeta | undefined {
    return this.#cache.recentMeta(container, this.#revalidateAfterMs);
  }

  /** Before a write to the file at `path`: `invalidate`, but a current listing of its container is kept for `writeDone`. */
  writeStarting(path: string): ListingWrite | undefined {
    if (this.#inPlace && this.#blocking.allowed) return this.#cache.writeStarting(path, this.#version);
    this.#cache.invalidate(path);
    return undefined;
  }

  /** Once that write is on disk: `member` (null: removed) goes into the listing; without it, the listing is stale. */
  writeDone(path: string, write: ListingWrite | undefined, member?: ResourceMeta | null): void {
    this.#cache.writeDone(path, write, member !== undefined && this.#blocking.allowed ? { member, versionOf: this.#version } : undefined);
  }

  /** A container's members, reused while the directory is unchanged (see ListingCache). */
  async children(container: string): Promise<readonly ResourceMeta[]> {
    const scan = (previous?: readonly ResourceMeta[]) => readMembers(this.#root, container, this.#blocking, previous);
    const recent = this.#cache.recent(container, this.#revalidateAfterMs, scan);
    if (recent) return recent;
    const stats = this.#blocking.allowed ? this.#blocking.run(statOfSync, join(this.#root, container)) : await statOf(join(this.#root, container));
    if (!stats?.isDirectory()) throw new StorageError('NotFound', `no container at ${container}`);
    return this.#cache.members(container, versionFrom(container, stats), scan);
  }

  /** The bytes of the files under `prefix`, by the listings `children` gives (the driver's). */
  async usage(prefix: string, children: (container: string) => Promise<readonly ResourceMeta[]>): Promise<number> {
    let members: readonly ResourceMeta[];
    try {
      members = await children(prefix);
    } catch (error) {
      if (error instanceof StorageError && error.code === 'NotFound') return 0;
      throw error;
    }
    let total = 0;
    for (const member of members) total += member.isContainer ? await this.usage(member.path, children) : member.size;
    return total;
  }

  /** A container's directory as it is now, by a blocking lstat. */
  readonly #version = (container: string): DirectoryVersion | null => {
    const stats = this.#blocking.run(statOfSync, join(this.#root, container));
    return stats?.isDirectory() ? versionFrom(container, stats) : null;
  };
}

function versionFrom(container: string, stats: BigIntStats): DirectoryVersion {
  return { ino: stats.ino, mtimeNs: stats.mtimeNs, meta: metaFromStats(container, stats) };
}
