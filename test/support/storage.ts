import type { StorageDriver } from '../../src/storage/types.ts';

/** The names of a container's members (a container's with its slash), sorted; none when it does not exist. */
export async function memberNames(storage: StorageDriver, container: string): Promise<string[]> {
  if (!(await storage.head(container))) return [];
  const found: string[] = [];
  for await (const member of storage.list(container)) found.push(member.path.slice(container.length));
  return found.sort();
}
