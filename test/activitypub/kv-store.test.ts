import { Temporal } from '@js-temporal/polyfill';
import { describe, expect, it } from 'vitest';
import { StorageKvStore } from '../../src/activitypub/kv-store.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

describe('StorageKvStore', () => {
  it('keeps values across instances over the same storage, by whole key', async () => {
    const storage = new MemoryDriver();
    await new StorageKvStore(storage, Date.now).set(['_fedify', 'publicKey', 'https://a.example/actor#key'], { pem: 'x' });
    const other = new StorageKvStore(storage, Date.now);
    expect(await other.get(['_fedify', 'publicKey', 'https://a.example/actor#key'])).toEqual({ pem: 'x' });
    expect(await other.get(['_fedify', 'publicKey', 'https://a.example/actor'])).toBeUndefined();
    await other.delete(['_fedify', 'publicKey', 'https://a.example/actor#key']);
    expect(await other.get(['_fedify', 'publicKey', 'https://a.example/actor#key'])).toBeUndefined();
  });

  it('forgets a value once its ttl has passed', async () => {
    let now = 5_000;
    const kv = new StorageKvStore(new MemoryDriver(), () => now);
    await kv.set(['seen', 'https://a.example/activity/1'], true, { ttl: Temporal.Duration.from({ minutes: 1 }) });
    now += 59_000;
    expect(await kv.get(['seen', 'https://a.example/activity/1'])).toBe(true);
    now += 1_000;
    expect(await kv.get(['seen', 'https://a.example/activity/1'])).toBeUndefined();
  });
});
