import { stat } from 'node:fs/promises';
import type { Config } from '../../../src/config/options.ts';
import { ConfigError } from '../../../src/config/resolve.ts';
import { POD_NAME } from '../../../src/pods/names.ts';
import type { StorageDriver } from '../../../src/storage/types.ts';
import { FsDriver } from '../../../storage-drivers/fs.ts';
import { openStorage, storageDescription } from '../storage.ts';

/**
 * Opens the data of a server for an administration command: its data directory (fs) or its bucket (s3).
 * A command never creates the directory: a mistyped --root stops with a message instead of leaving an empty
 * data directory behind (nor a bucket, which svc never creates).
 */
export async function openAdminStorage(config: Config): Promise<StorageDriver> {
  if (config.storage === 's3') return openStorage(config, { env: process.env });
  if (config.storage !== 'fs') {
    const why = config.storage === 'memory' ? 'a server on memory storage keeps its pods inside its own process' : 'R2 is reached only from Cloudflare Workers (its S3 API: --storage s3)';
    throw new ConfigError(`administration commands work on the data of a server with --storage fs or s3; ${why}.`);
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
  if (!exists) throw new ConfigError(`there is no pod "${name}" in ${storageDescription(config)}.`);
  return root;
}
