/**
 * The fs driver's view of directory entries: stats of a path (a missing one is null), the metadata they give,
 * a container's members, and making or removing the directories of containers. The driver's caches sit above
 * these; nothing here remembers anything.
 */
import { lstatSync, type BigIntStats } from 'node:fs';
import { lstat, mkdir, opendir, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ancestorsOf, isReservedName, parentOf } from '../src/storage/paths.ts';
import { StorageError, type ResourceMeta } from '../src/storage/types.ts';

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

/** The members of the container at `container` (storage path) under `root`, read from the disk. */
export async function readMembers(root: string, container: string): Promise<ResourceMeta[]> {
  let dir;
  try {
    dir = await opendir(join(root, container));
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new StorageError('NotFound', `no container at ${container}`);
    throw error;
  }
  const members: ResourceMeta[] = [];
  const batch: Promise<ResourceMeta | null>[] = [];
  const statChild = async (childPath: string) => {
    const stats = await statOf(join(root, childPath));
    return stats && (stats.isFile() || stats.isDirectory()) ? metaFromStats(childPath, stats) : null;
  };
  const drain = async () => {
    for (const meta of await Promise.all(batch.splice(0))) if (meta) members.push(meta);
  };
  for await (const entry of dir) {
    if (isReservedName(entry.name)) continue;
    if (entry.isDirectory()) batch.push(statChild(`${container}${entry.name}/`));
    else if (entry.isFile()) batch.push(statChild(container + entry.name));
    if (batch.length >= 64) await drain();
  }
  await drain();
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
