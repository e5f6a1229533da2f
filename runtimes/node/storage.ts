import type { Config } from '../../src/config/options.ts';
import { ConfigError } from '../../src/config/resolve.ts';
import type { StorageDriver } from '../../src/storage/types.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

/** `recover`: opened by the server itself (see FsOptions.recover), not by a command beside it. */
export async function openStorage(config: Config, recover = false): Promise<StorageDriver> {
  if (config.storage === 'r2') {
    throw new ConfigError('--storage r2 is available only on Cloudflare Workers (runtime: workers, with an R2 bucket bound as PODS); on Node use --storage fs or --storage memory.');
  }
  return config.storage === 'memory' ? new MemoryDriver() : openDataDirectory(config, recover);
}

/** The fs driver on --root; what keeps it from being the data directory is said in one line naming the option. */
export async function openDataDirectory(config: Config, recover: boolean): Promise<FsDriver> {
  try {
    // Other instances write the same files: every read checks the file instead of trusting a cached body.
    return await FsDriver.open(config.root, { recover, ...(config.redisUrl && { revalidateAfterMs: 0, shared: true }) });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? 'that is a file, not a directory'
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? 'this user may not write there'
          : (error as Error).message;
    throw new ConfigError(`cannot use --root ${config.root} as the data directory: ${why}. Give a directory svc may write (it is made if missing).`);
  }
}
