import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withSharedPreconditions } from '../../src/cluster/shared-preconditions.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { useTestRedis } from '../support/redis.ts';
import { startTestS3, type TestS3 } from '../support/s3.ts';

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

describe('create-only across instances on an S3 endpoint without conditional writes', () => {
  let s3: TestS3;
  beforeAll(async () => {
    s3 = await startTestS3();
  });
  afterAll(async () => {
    await s3?.stop();
  });

  /** One instance on the bucket: its own driver (its own per-process locks), its own Redis connection. */
  const s3Instance = async () => withSharedPreconditions(await s3.driver('shared/'), await redis.connect());

  it('lets exactly one of many create-only writes win, whichever instance they go through', async () => {
    const drivers = [await s3Instance(), await s3Instance(), await s3Instance()];
    expect(drivers[0]!.capabilities.crossProcessAtomic).toBe(false);
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => drivers[i % 3]!.put('/claimed', `writer ${i}`, { contentType: 'text/plain', ifNoneMatch: '*' })));
    const winner = results.findIndex((result) => result !== null);
    expect(results.filter((result) => result !== null)).toHaveLength(1);
    expect(await new Response((await drivers[1]!.get('/claimed'))!.body).text()).toBe(`writer ${winner}`);
  });

  it('creates a container once, whichever instance asks', async () => {
    const drivers = [await s3Instance(), await s3Instance()];
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => drivers[i % 2]!.createContainer('/made/')));
    expect(results.filter((result) => result !== null)).toHaveLength(1);
  });
});
