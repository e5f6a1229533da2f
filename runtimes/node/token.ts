import { mintToken } from '../../src/auth/bearer.ts';
import { loadOrCreateTokenKey } from '../../src/auth/token-key.ts';
import type { Config } from '../../src/config/options.ts';
import { ConfigError } from '../../src/config/resolve.ts';
import { readPodRecord } from '../../src/pods/registry.ts';
import { readRootPodRecord } from '../../src/pods/single-user.ts';
import { withStorage } from './commands/pod-storage.ts';
import { storageDescription } from './storage.ts';

/** `svc token <pod>`: a fresh bearer token for an existing pod (`/`: the single-user pod at the root), signed with the server's stored key. */
export async function mintPodToken(config: Config, podName: string): Promise<string> {
  return withStorage(config, async (storage) => {
    const record =
      podName === '/' ? await readRootPodRecord(storage) : /^[a-z0-9_-]{1,63}$/.test(podName) ? await readPodRecord(storage, podName) : null;
    if (!record) throw new ConfigError(`there is no pod "${podName}" in ${storageDescription(config)}.`);
    const key = await loadOrCreateTokenKey(storage);
    return await mintToken(key, record.webId, config.tokenTtl, Date.now());
  });
}
