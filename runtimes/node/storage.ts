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
  // Other instances write the same files: every read checks the file instead of trusting a cached body.
  return config.storage === 'memory' ? new MemoryDriver() : FsDriver.open(config.root, { recover, ...(config.redisUrl && { revalidateAfterMs: 0, shared: true }) });
}
