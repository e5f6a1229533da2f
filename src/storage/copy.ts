import type { StorageDriver } from './types.ts';

export interface CopyCount {
  resources: number;
  /** Containers written as such: empty ones (the others come with their members). */
  emptyContainers: number;
  bytes: number;
}

/**
 * Copies everything one storage holds into another (`svc copy`, to move a server from fs to S3 and back):
 * every resource with its bytes and content type, the server's own records under `/.server/` included, and
 * every empty container. What each driver keeps for itself (sidecars, leases, temp files) is not listed, so
 * not copied; ETags and modification times are the target's own. One container is listed at a time, and one
 * resource is held in memory at a time.
 */
export async function copyStorage(from: StorageDriver, to: StorageDriver, progress?: (path: string) => void): Promise<CopyCount> {
  const count: CopyCount = { resources: 0, emptyContainers: 0, bytes: 0 };
  const containers = ['/'];
  while (containers.length > 0) {
    const container = containers.pop()!;
    let members = 0;
    for await (const member of from.list(container)) {
      members += 1;
      if (member.isContainer) {
        containers.push(member.path);
        continue;
      }
      const stored = await from.get(member.path);
      if (!stored) continue;
      const written = await to.put(member.path, stored.bytes ?? stored.body, { contentType: stored.meta.contentType ?? 'application/octet-stream' });
      count.resources += 1;
      count.bytes += written?.meta.size ?? 0;
      progress?.(member.path);
    }
    if (members === 0 && container !== '/' && (await to.createContainer(container))) count.emptyContainers += 1;
  }
  return count;
}
