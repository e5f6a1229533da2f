import { describe, expect, it } from 'vitest';
import type { ObjectStoreDriver } from '../../storage-drivers/object-store.ts';

/** An object store under test: drivers on fresh key prefixes of one bucket, and the bucket as other tools see it. */
export interface ObjectStoreUnderTest {
  /** A driver on a fresh prefix (with `pageSize` keys per list call). */
  driver(options?: { pageSize?: number }): Promise<ObjectStoreDriver>;
  /** The prefix of the driver made last, e.g. `t7/`. */
  prefix(): string;
  /** Writes an object with another tool (no svc involved) at a key of the bucket. */
  putForeign(key: string, body: string, contentType: string): Promise<void>;
  /** Every key under a prefix of the bucket, as any S3 or R2 tool lists them. */
  keys(prefix: string): Promise<string[]>;
}

/** What the R2 and S3 drivers share beyond the storage contract: their layout in the bucket and its listings. */
export function runObjectStoreSpecifics(name: string, store: ObjectStoreUnderTest): void {
  describe(`object-store layout: ${name}`, () => {
    it('stores one object per resource at its path, with its content type as the object’s own, and containers as markers', async () => {
      const driver = await store.driver();
      await driver.put('/a/b/c.txt', 'x', { contentType: 'text/plain' });
      await driver.put('/a/data', '{}', { contentType: 'application/ld+json' });
      const prefix = store.prefix();
      expect(await store.keys(prefix)).toEqual([`${prefix}a/`, `${prefix}a/b/`, `${prefix}a/b/c.txt`, `${prefix}a/data`]);
      expect((await driver.head('/a/data'))?.contentType).toBe('application/ld+json');
    });

    it("changes a container's etag when its members change", async () => {
      const driver = await store.driver();
      await driver.createContainer('/box/');
      const before = (await driver.head('/box/'))!.etag;
      await driver.put('/box/item', '1', { contentType: 'text/plain' });
      const afterCreate = (await driver.head('/box/'))!.etag;
      expect(afterCreate).not.toBe(before);
      await driver.put('/box/item', '2', { contentType: 'text/plain' });
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
      const driver = await store.driver({ pageSize: 4 });
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

    it('reads keys written by other tools under a prefix as an implicit container', async () => {
      const driver = await store.driver();
      await store.putForeign(`${store.prefix()}imported/photos/cat & dog+1.txt`, 'abc', 'text/plain');
      expect((await driver.head('/imported/'))?.isContainer).toBe(true);
      const listed: string[] = [];
      for await (const meta of driver.list('/imported/photos/')) listed.push(meta.path);
      expect(listed).toEqual(['/imported/photos/cat & dog+1.txt']);
      expect(await new Response((await driver.get('/imported/photos/cat & dog+1.txt'))!.body).text()).toBe('abc');
    });

    it('clamps a byte range that runs past the end', async () => {
      const driver = await store.driver();
      await driver.put('/r', '0123456789', { contentType: 'application/octet-stream' });
      const part = await driver.get('/r', { range: { start: 7, end: 100 } });
      expect(part?.range).toEqual({ start: 7, end: 9 });
      expect(await new Response(part!.body).text()).toBe('789');
    });
  });
}
