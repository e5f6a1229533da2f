import { isStorageError, type StorageDriver } from '../storage/types.ts';

/** A JSON record stored at `path`, with its ETag, or null when there is none. */
export async function readRecord<T>(storage: StorageDriver, path: string): Promise<{ value: T; etag: string } | null> {
  const stored = await storage.get(path);
  if (!stored) return null;
  return { value: JSON.parse(await new Response(stored.body).text()) as T, etag: stored.meta.etag };
}

/** Writes a JSON record; `createOnly` makes it a no-op (answering false) when the record exists. */
export async function writeRecord(storage: StorageDriver, path: string, value: unknown, createOnly = false): Promise<boolean> {
  const result = await storage.put(path, JSON.stringify(value), { contentType: 'application/json', ...(createOnly && { ifNoneMatch: '*' }) });
  return result !== null;
}

/** The paths of a container's resources (not sub-containers), empty when the container does not exist. */
export async function recordPaths(storage: StorageDriver, container: string): Promise<string[]> {
  const paths: string[] = [];
  try {
    for await (const member of storage.list(container)) if (!member.isContainer) paths.push(member.path);
  } catch (error) {
    if (isStorageError(error, 'NotFound')) return [];
    throw error;
  }
  return paths.sort();
}
