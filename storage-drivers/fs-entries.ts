/**
 * The fs driver's view of directory entries: stats of a path (a missing one is null), the metadata they give,
 * a container's members, and making or removing the directories of containers. The driver's caches sit above
 * these; nothing here remembers anything.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type BigIntStats } from 'node:fs';
import { lstat, mkdir, opendir, readdir, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ancestorsOf, isReservedName, parentOf } from '../src/storage/paths.ts';
import { StorageError, type ResourceMeta } from '../src/storage/types.ts';
import type { BlockingCalls } from './fs-blocking.ts';

export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function depthOf(path: string): number {
  return path.split(/[\\/]/).filter(Boolean).length;
}

/** The stats of `file` itself (never of what a symlink points to); null when nothing is there. */
export async function statOf(file: string): Promise<BigIntStats | null> {
  try {
    return await lstat(file, { bigint: true });
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return null;
    throw error;
  }
}

/** `statOf` in a blocking call. */
export function statOfSync(file: string): BigIntStats | null {
  try {
    return lstatSync(file, { bigint: true, throwIfNoEntry: false }) ?? null;
  } catch (error) {
    if (errorCode(error) === 'ENOTDIR') return null;
    throw error;
  }
}

/**
 * A file of at most `maxBytes` read whole in blocking calls: its stats and bytes; null when there is no file;
 * 'large' when it is bigger (read it as a stream); 'changed' when it changed while being read (read again).
 */
export function readSmallSync(file: string, maxBytes: number): { stats: BigIntStats; bytes: Uint8Array } | 'large' | 'changed' | null {
  let fd;
  try {
    // Non-blocking: a FIFO someone put at a resource's path must not hold the event loop (no effect on files).
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
    throw error;
  }
  try {
    const stats = fstatSync(fd, { bigint: true });
    if (!stats.isFile()) return null;
    if (stats.size > BigInt(maxBytes)) return 'large';
    const bytes = new Uint8Array(Number(stats.size));
    let read = 0;
    while (read < bytes.byteLength) {
      const got = readSync(fd, bytes, read, bytes.byteLength - read, read);
      if (got === 0) break;
      read += got;
    }
    const after = fstatSync(fd, { bigint: true });
    if (read !== bytes.byteLength || after.mtimeNs !== stats.mtimeNs || after.size !== stats.size) return 'changed';
    return { stats, bytes };
  } finally {
    closeSync(fd);
  }
}

export function metaFromStats(path: string, stats: BigIntStats): ResourceMeta {
  const isContainer = stats.isDirectory();
  return {
    path,
    isContainer,
    size: isContainer ? 0 : Number(stats.size),
    etag: `${isContainer ? 'd' : 'f'}${stats.ino.toString(36)}-${stats.size.toString(36)}-${stats.mtimeNs.toString(36)}`,
    modified: Number(stats.mtimeNs / 1_000_000n),
  };
}

/** Stats that match the kind of path asked for; anything else (symlinks, sockets) is invisible. */
export function matchesKind(path: string, stats: BigIntStats | null): stats is BigIntStats {
  if (!stats) return false;
  return path.endsWith('/') ? stats.isDirectory() : stats.isFile();
}

/** Members stat'ed between two turns of the event loop: other requests go on between slices. */
const SCAN_SLICE = 256;

/**
 * Gives back `previous`'s object for a member unchanged since (same path, kind and ETag), else a new one: a
 * rescan of a large container keeps alive only what changed, not a new copy of every member for the garbage
 * collector to promote and mark. A directory is read in the same order each time, so the previous member is
 * mostly the next one in `previous`, recognised by its name without making its path; one found elsewhere is
 * looked up by path.
 */
function reuser(container: string, previous: readonly ResourceMeta[]): (name: string, stats: BigIntStats) => ResourceMeta {
  let next = 0;
  let indexOf: Map<string, number> | undefined;
  return (name, stats) => {
    const isContainer = stats.isDirectory();
    let old: ResourceMeta | undefined = previous[next];
    if (!old || old.isContainer !== isContainer || old.path.length !== container.length + name.length + (isContainer ? 1 : 0) || !old.path.startsWith(name, container.length)) {
      indexOf ??= new Map(previous.map((member, index) => [member.path, index]));
      const at = indexOf.get(isContainer ? `${container}${name}/` : container + name);
      old = at === undefined ? undefined : previous[at];
      if (old) next = at! + 1;
    } else next++;
    const meta = metaFromStats(old ? old.path : isContainer ? `${container}${name}/` : container + name, stats);
    return old && old.etag === meta.etag && old.size === meta.size && old.modified === meta.modified ? old : meta;
  };
}

/**
 * The members of the container at `container` (storage path) under `root`, read from the disk: the names in
 * one call, then each member's stats, blocking calls while `blocking` allows them (an lstat of a cached
 * inode takes a few microseconds, a round trip through the thread pool twenty), in slices. Members unchanged
 * since `previous` (an earlier scan of the same container) are its objects. Each member's own garbage is
 * little more than its Stats (a 10,000-member scan makes tens of megabytes of it, and with it garbage
 * collections and the kernel's inodes pushed out of the CPU's caches).
 */
export async function readMembers(root: string, container: string, blocking: BlockingCalls, previous: readonly ResourceMeta[] = []): Promise<ResourceMeta[]> {
  // Ends with a separator, as `container` does: a member's file is this and its name (no path.join per member).
  const directory = join(root, container);
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new StorageError('NotFound', `no container at ${container}`);
    throw error;
  }
  const reuse = reuser(container, previous);
  const members: ResourceMeta[] = [];
  // Symlinks, sockets and the like are not members (lstat: a link is not followed).
  const add = (name: string, stats: BigIntStats | null) => {
    if (stats?.isFile() || stats?.isDirectory()) members.push(reuse(name, stats));
  };
  for (let start = 0; start < names.length; start += SCAN_SLICE) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const pending: Promise<void>[] = [];
    for (let index = start; index < Math.min(start + SCAN_SLICE, names.length); index++) {
      const name = names[index]!;
      // Names done with are let go: between two slices the young generation's collections would otherwise copy
      // every name not yet reached, and promote them (~0.7 MB for 10,000 members and their sidecars).
      names[index] = '';
      if (isReservedName(name)) continue;
      if (blocking.allowed) add(name, blocking.run(statOfSync, directory + name));
      else pending.push(statOf(directory + name).then((stats) => add(name, stats)));
    }
    await Promise.all(pending);
  }
  return members;
}

/**
 * `mkdir -p` that gives up where a directory cannot be made: Node's recursive mkdir retries for ever when a
 * parent exists but answers ENOENT for any new name in it (`/proc/nope` on Linux). A file in the way is EEXIST.
 */
export async function makeDirectoryTree(directory: string): Promise<void> {
  const made = async () => {
    try {
      await mkdir(directory);
    } catch (error) {
      // Made by someone else meanwhile, or there already: fine if it is a directory (or a link to one).
      if (errorCode(error) !== 'EEXIST' || !(await stat(directory)).isDirectory()) throw error;
    }
  };
  try {
    await made();
  } catch (error) {
    const parent = dirname(directory);
    if (errorCode(error) !== 'ENOENT' || parent === directory) throw error;
    await makeDirectoryTree(parent);
    await made();
  }
}

/** Creates the missing ancestors of `path` under `root`; returns the storage paths of those it created. */
export async function makeParents(root: string, path: string): Promise<string[]> {
  let first: string | undefined;
  try {
    first = await mkdir(join(root, parentOf(path)!), { recursive: true });
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOTDIR' || code === 'EEXIST') {
      throw new StorageError('Conflict', `a resource stands where ${path} needs a container`);
    }
    throw error;
  }
  if (first === undefined) return [];
  const firstDepth = depthOf(first.slice(root.length));
  return ancestorsOf(path).filter((ancestor) => depthOf(ancestor) >= firstDepth);
}

/** Removes a container's directory with the driver's own files in it; refused while it has members. */
export async function removeEmptyDirectory(root: string, path: string): Promise<void> {
  const target = join(root, path);
  const internal: string[] = [];
  for await (const entry of await opendir(target)) {
    if (!isReservedName(entry.name)) throw new StorageError('NotEmpty', `${path} is not empty`);
    internal.push(entry.name);
  }
  await Promise.all(internal.map((name) => unlink(join(target, name)).catch(() => undefined)));
  try {
    await rmdir(target);
  } catch (error) {
    if (errorCode(error) === 'ENOTEMPTY') throw new StorageError('NotEmpty', `${path} is not empty`);
    throw error;
  }
}
