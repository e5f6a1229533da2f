import { loadOrCreateTokenKey } from '../../src/auth/token-key.ts';
import type { Config } from '../../src/config/options.ts';
import { ConfigError } from '../../src/config/resolve.ts';
import { mintOwnerToken, podRecordByName } from '../../src/pods/owner-token.ts';
import { withStorage } from './commands/pod-storage.ts';
import { storageDescription } from './storage.ts';

/** `svc token <pod>`: a fresh bearer token for an existing pod (`/`: the single-user pod at the root), signed with the server's stored key. */
export async function mintPodToken(config: Config, podName: string): Promise<string> {
  return withStorage(config, async (storage) => {
    const record = await podRecordByName(storage, podName);
    if (!record) throw new ConfigError(`there is no pod "${podName}" in ${storageDescription(config)}.`);
    return mintOwnerToken(record, await loadOrCreateTokenKey(storage), config.tokenTtl, Date.now());
  });
}
