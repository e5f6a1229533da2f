import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R2Driver, type R2BucketLike } from '../../storage-drivers/r2.ts';
import { runStorageContract } from './contract.ts';

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

describe('r2 driver specifics', () => {
  it('stores keys without the leading slash and containers as markers ending in /', async () => {
    const driver = new R2Driver(bucket, { prefix: 'layout/' });
    await driver.put('/a/b/c.txt', 'x', { contentType: 'text/plain' });
    const keys: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await bucket.list({ prefix: 'layout/', ...(cursor ? { cursor } : {}) });
      keys.push(...page.objects.map((o) => o.key));
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    expect(keys.filter((k) => !k.endsWith('.svc-meta')).sort()).toEqual(['layout/a/', 'layout/a/b/', 'layout/a/b/c.txt']);
  });

  it("changes a container's etag when its members change", async () => {
    const driver = freshDriver();
    await driver.createContainer('/box/');
    const before = (await driver.head('/box/'))!.etag;
    await driver.put('/box/item', '1', { contentType: 'text/plain' });
    const afterCreate = (await driver.head('/box/'))!.etag;
    expect(afterCreate).not.toBe(before);
    await driver.put('/box/item', '1', { contentType: 'text/plain' });
    const afterRewrite = (await driver.head('/box/'))!.etag;
    expect(afterRewrite).not.toBe(afterCreate);
    expect((await driver.head('/box/'))!.etag).toBe(afterRewrite);
    await driver.delete('/box/item');
    expect((await driver.head('/box/'))!.etag).not.toBe(afterRewrite);
    const rootNames: string[] = [];
    for await (const meta of driver.list('/')) rootNames.push(meta.path);
    expect(rootNames).toEqual(['/box/']);
  });

  it('pages through listings longer than one list call', async () => {
    counter += 1;
    const driver = new R2Driver(bucket, { prefix: `t${counter}/`, pageSize: 4 });
    await driver.createContainer('/big/');
    for (let i = 0; i < 9; i++) await driver.put(`/big/f${i}`, 'x'.repeat(i), { contentType: 'text/plain' });
    for (let i = 0; i < 3; i++) await driver.createContainer(`/big/sub${i}/`);
    await driver.put('/big/sub0/deep', '1234', { contentType: 'text/plain' });
    const seen: string[] = [];
    for await (const meta of driver.list('/big/')) seen.push(meta.path);
    expect(seen.length).toBe(12);
    expect(new Set(seen).size).toBe(12);
    expect(await driver.usage('/big/')).toBe(36 + 4);
  });

  it('treats keys written by other tools under a prefix as an implicit container', async () => {
    const driver = freshDriver();
    await bucket.put(`t${counter}/imported/file.txt`, 'abc', { httpMetadata: { contentType: 'text/plain' } });
    expect((await driver.head('/imported/'))?.isContainer).toBe(true);
    const listed: string[] = [];
    for await (const meta of driver.list('/imported/')) listed.push(meta.path);
    expect(listed).toEqual(['/imported/file.txt']);
  });

  it('clamps a byte range that runs past the end', async () => {
    const driver = freshDriver();
    await driver.put('/r', '0123456789', { contentType: 'application/octet-stream' });
    const part = await driver.get('/r', { range: { start: 7, end: 100 } });
    expect(part?.range).toEqual({ start: 7, end: 9 });
    expect(await new Response(part!.body).text()).toBe('789');
  });
});
