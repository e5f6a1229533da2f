import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { runStorageContract } from './contract.ts';

runStorageContract('memory', async () => new MemoryDriver());
