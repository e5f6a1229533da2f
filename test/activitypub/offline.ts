/** What tests of the ActivityPub feature in-process share: no network, and one actor key pair. */
import { loadOrCreateActorKeys } from '../../src/activitypub/keys.ts';
import { KEY_PAIR_PATH } from '../../src/activitypub/paths.ts';
import { OutboundFetchRefused } from '../../src/http/outbound-guard.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

/** These tests reach no other server: deliveries wait in the queue. */
export const noOutbound = async (url: string | URL): Promise<Response> => {
  throw new OutboundFetchRefused(String(url), 'no network in this test');
};

/** The platform parts the feature needs on the test runtime. */
export const offlinePlatform = { fetch: noOutbound, activityPub: () => import('../../src/activitypub/federation.ts') };

/** One generated key pair for every test of a file (RSA generation takes seconds). */
const storedKeyPair = (async () => {
  const storage = new MemoryDriver();
  await loadOrCreateActorKeys(storage, Date.now);
  return new Response((await storage.get(KEY_PAIR_PATH))!.body).text();
})();

/** A fresh memory storage holding that key pair, so the actor needs none generated. */
export async function storageWithActorKeys(): Promise<MemoryDriver> {
  const storage = new MemoryDriver();
  await storage.put(KEY_PAIR_PATH, await storedKeyPair, { contentType: 'application/json' });
  return storage;
}
