import { stat } from 'node:fs/promises';
import type { Config } from '../../../src/config/options.ts';
import { ConfigError } from '../../../src/config/resolve.ts';
import { POD_NAME } from '../../../src/pods/names.ts';
import type { StorageDriver } from '../../../src/storage/types.ts';
import { FsDriver } from '../../../storage-drivers/fs.ts';

/**
 * Opens the data directory of a server for an administration command. Only the fs driver keeps data another
 * process can reach, and a command never creates the directory: a mistyped --root stops with a message
 * instead of leaving an empty data directory behind.
 */
export async function openAdminStorage(config: Config): Promise<StorageDriver> {
  if (config.storage !== 'fs') {
    const why = config.storage === 'memory' ? 'a server on memory storage keeps its pods inside its own process' : 'R2 is reached only from Cloudflare Workers';
    throw new ConfigError(`administration commands work on the files of a server with --storage fs; ${why}.`);
  }
  const found = await stat(config.root).catch(() => null);
  if (!found?.isDirectory()) {
    throw new ConfigError(`there is no data directory ${config.root}: give the --root (or -c config file) of the server; svc start creates it.`);
  }
  return FsDriver.open(config.root);
}

/** Opens the server's data directory for one command and closes it afterwards. */
export async function withStorage<T>(config: Config, task: (storage: StorageDriver) => Promise<T>): Promise<T> {
  const storage = await openAdminStorage(config);
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
  if (!exists) throw new ConfigError(`there is no pod "${name}" in ${config.root}.`);
  return root;
}
