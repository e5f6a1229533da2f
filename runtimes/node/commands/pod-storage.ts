import type { Config } from '../../../src/config/options.ts';
import { ConfigError } from '../../../src/config/resolve.ts';
import { POD_NAME } from '../../../src/pods/names.ts';
import type { StorageDriver } from '../../../src/storage/types.ts';
import { openStorage } from '../storage.ts';

/** Where the data lives, for messages: the data directory or the driver's name. */
export function describeRoot(config: Config): string {
  return config.storage === 'fs' ? config.root : `${config.storage} storage`;
}

/** Opens the configured storage for one command and closes it afterwards. */
export async function withStorage<T>(config: Config, task: (storage: StorageDriver) => Promise<T>): Promise<T> {
  const storage = await openStorage(config);
  try {
    return await task(storage);
  } finally {
    await storage.close?.();
  }
}

/** The root container of an existing pod; a clear error when there is none. */
export async function existingPodRoot(storage: StorageDriver, config: Config, name: string): Promise<string> {
  const root = `/${name}/`;
  const exists = POD_NAME.test(name) && (await storage.head(root))?.isContainer === true;
  if (!exists) throw new ConfigError(`there is no pod "${name}" in ${describeRoot(config)}.`);
  return root;
}
