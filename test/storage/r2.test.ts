import { Miniflare } from 'miniflare';
import { afterAll, beforeAll } from 'vitest';
import { R2Driver, type R2BucketLike } from '../../storage-drivers/r2.ts';
import { runStorageContract } from './contract.ts';
import { runObjectStoreSpecifics } from './object-store.ts';

/*
 * The R2 driver runs in Node against a real workerd R2 bucket: Miniflare hands out the bucket binding as a
 * proxy object. Every driver the contract asks for gets a fresh key prefix in the same bucket.
 */
let mf: Miniflare;
let bucket: R2BucketLike;
let counter = 0;

beforeAll(async () => {
  mf = new Miniflare({
    modules: true,
    script: 'export default { fetch() { return new Response(null, { status: 404 }); } }',
    compatibilityDate: '2026-04-26',
    r2Buckets: ['PODS'],
  });
  bucket = (await mf.getR2Bucket('PODS')) as unknown as R2BucketLike;
});

afterAll(async () => {
  await mf?.dispose();
});

function freshDriver(): R2Driver {
  counter += 1;
  return new R2Driver(bucket, { prefix: `t${counter}/` });
}

runStorageContract('r2', async () => freshDriver());

runObjectStoreSpecifics('r2', {
  driver: async (options = {}) => new R2Driver(bucket, { prefix: `t${++counter}/`, ...options }),
  prefix: () => `t${counter}/`,
  putForeign: async (key, body, contentType) => void (await bucket.put(key, body, { httpMetadata: { contentType } })),
  async keys(prefix) {
    const keys: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await bucket.list({ prefix, ...(cursor ? { cursor } : {}) });
      keys.push(...page.objects.map((o) => o.key));
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    return keys.sort();
  },
});
