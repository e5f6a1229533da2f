import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withSharedPreconditions } from '../../src/cluster/shared-preconditions.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { useTestRedis } from '../support/redis.ts';

const redis = useTestRedis();
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-preconditions-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** One instance's view of the shared directory: its own driver (own caches and locks), its own Redis connection. */
async function instance() {
  const state = await redis.connect();
  return withSharedPreconditions(await FsDriver.open(root, { revalidateAfterMs: 0 }), state);
}

describe('compare-and-swap across instances', () => {
  it('lets exactly one of many If-Match writes of the same version win, whichever instance they go through', async () => {
    const drivers = [await instance(), await instance(), await instance()];
    const first = await drivers[0]!.put('/doc.txt', 'v0', { contentType: 'text/plain' });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => drivers[i % 3]!.put('/doc.txt', `v1 from writer ${i} ${'x'.repeat(i * 1000)}`, { contentType: 'text/plain', ifMatch: first!.meta.etag })),
    );
    expect(results.filter((result) => result !== null)).toHaveLength(1);
  });

  it('lets exactly one of many If-Match deletes of the same version win', async () => {
    const drivers = [await instance(), await instance()];
    const written = await drivers[0]!.put('/once.json', '{}', { contentType: 'application/json' });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => drivers[i % 2]!.delete('/once.json', { ifMatch: written!.meta.etag })));
    expect(results.filter((result) => result !== null)).toHaveLength(1);
  });
});
