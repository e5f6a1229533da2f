import type { Config } from '../../src/config/options.ts';
import type { StorageDriver } from '../../src/storage/types.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

export async function openStorage(config: Config): Promise<StorageDriver> {
  return config.storage === 'memory' ? new MemoryDriver() : FsDriver.open(config.root);
}
