/**
 * The quotas of several instances on one storage (`--redis-url`), on a real Redis: two instances' wrappers
 * over one storage count containers and documents kept outside the storage as one pod, and a recount of the
 * files keeps the documents.
 */
import { describe, expect, it } from 'vitest';
import { CONTAINER_BYTES, measurePodUsage, readQuotaRecord, writeQuotaRecord } from '../../src/quota/record.ts';
import { quotaScope } from '../../src/quota/scope.ts';
import { withSharedQuotas } from '../../src/quota/shared-quotas.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { useTestRedis } from '../support/redis.ts';

const redis = useTestRedis();
const scope = quotaScope({ singlePod: null });

describe('quotas shared through Redis', () => {
  it('count containers and documents across instances, refuse past the limit, and keep documents through a recount', async () => {
    const storage = new MemoryDriver();
    await storage.createContainer('/alice/');
    const limit = 3 * CONTAINER_BYTES + 500;
    await writeQuotaRecord(storage, '/alice/', { limit, used: 0 });
    const options = { log: () => undefined, scope };
    const one = withSharedQuotas(storage, await redis.connect(), options);
    const two = withSharedQuotas(storage, await redis.connect(), options);
    const record = async () => (await readQuotaRecord(storage, '/alice/'))!.record;

    expect(await one.storage.createContainer('/alice/a/b/')).not.toBeNull();
    expect(await record()).toEqual({ limit, used: 2 * CONTAINER_BYTES });
    const stored = await two.quotas.outside('/alice/', { size: 600, previousSize: 0 }, async () => ({ value: 'written', change: 600 }));
    expect(stored).toBe('written');
    expect(await record()).toEqual({ limit, used: 2 * CONTAINER_BYTES + 600, documents: 600 });

    await expect(one.storage.createContainer('/alice/c/')).rejects.toMatchObject({ status: 507 });
    await expect(one.quotas.ensureRoom('/alice/', CONTAINER_BYTES - 99)).rejects.toMatchObject({ status: 507 });
    expect(await two.quotas.free('/alice/')).toBe(CONTAINER_BYTES - 100);
    expect(await one.storage.put('/alice/a/x.txt', 'x'.repeat(400), { contentType: 'text/plain' })).not.toBeNull();
    expect(await one.storage.delete('/alice/a/b/')).not.toBeNull();
    expect(await record()).toEqual({ limit, used: CONTAINER_BYTES + 400 + 600, documents: 600 });

    // Files changed behind the storage's back (a git push): the recount measures them and keeps the documents.
    await storage.put('/alice/a/pushed.txt', 'p'.repeat(100), { contentType: 'text/plain' });
    await two.quotas.recount('/alice/');
    expect(await record()).toEqual({ limit, used: (await measurePodUsage(storage, '/alice/')) + 600, documents: 600 });
    expect((await record()).used).toBe(CONTAINER_BYTES + 500 + 600);
  });
});
