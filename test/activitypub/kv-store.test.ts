import { Temporal } from '@js-temporal/polyfill';
import { describe, expect, it } from 'vitest';
import { StorageKvStore } from '../../src/activitypub/kv-store.ts';
import { KV_CONTAINER } from '../../src/activitypub/paths.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

describe('StorageKvStore', () => {
  it('keeps values across instances over the same storage, by whole key', async () => {
    const storage = new MemoryDriver();
    await new StorageKvStore(storage, Date.now, () => {}).set(['_fedify', 'publicKey', 'https://a.example/actor#key'], { pem: 'x' });
    const other = new StorageKvStore(storage, Date.now, () => {});
    expect(await other.get(['_fedify', 'publicKey', 'https://a.example/actor#key'])).toEqual({ pem: 'x' });
    expect(await other.get(['_fedify', 'publicKey', 'https://a.example/actor'])).toBeUndefined();
    await other.delete(['_fedify', 'publicKey', 'https://a.example/actor#key']);
    expect(await other.get(['_fedify', 'publicKey', 'https://a.example/actor#key'])).toBeUndefined();
  });

  it('forgets a value once its ttl has passed', async () => {
    let now = 5_000;
    const kv = new StorageKvStore(new MemoryDriver(), () => now, () => {});
    await kv.set(['seen', 'https://a.example/activity/1'], true, { ttl: Temporal.Duration.from({ minutes: 1 }) });
    now += 59_000;
    expect(await kv.get(['seen', 'https://a.example/activity/1'])).toBe(true);
    now += 1_000;
    expect(await kv.get(['seen', 'https://a.example/activity/1'])).toBeUndefined();
  });

  it('removes records whose ttl passed when nobody asks for them again, and keeps those set without one', async () => {
    let now = 5_000;
    const storage = new MemoryDriver();
    const logs: string[] = [];
    const kv = new StorageKvStore(storage, () => now, (line) => logs.push(line));
    const minute = { ttl: Temporal.Duration.from({ minutes: 1 }) };
    for (const id of [1, 2, 3]) await kv.set(['seen', `https://a.example/activity/${id}`], true, minute);
    await kv.set(['_fedify', 'publicKey', 'https://a.example/actor#key'], { pem: 'x' });
    const stored = async () => {
      let count = 0;
      for await (const member of storage.list(KV_CONTAINER)) if (!member.isContainer) count++;
      return count;
    };
    expect(await stored()).toBe(4);

    now += 11 * 60_000;
    await kv.set(['seen', 'https://a.example/activity/4'], true, minute);
    expect(await stored()).toBe(2);
    expect(await kv.get(['_fedify', 'publicKey', 'https://a.example/actor#key'])).toEqual({ pem: 'x' });
    expect(await kv.get(['seen', 'https://a.example/activity/4'])).toBe(true);
    expect(logs).toEqual([]);
  });
});
