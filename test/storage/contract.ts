import { describe, expect, it } from 'vitest';
import { MAX_SEGMENT_BYTES } from '../../src/storage/paths.ts';
import { isStorageError, type ResourceMeta, type StorageDriver } from '../../src/storage/types.ts';

const encoder = new TextEncoder();

async function text(driver: StorageDriver, path: string): Promise<string | null> {
  const stored = await driver.get(path);
  return stored ? new Response(stored.body).text() : null;
}

async function names(driver: StorageDriver, container: string): Promise<string[]> {
  const result: string[] = [];
  for await (const meta of driver.list(container)) result.push(meta.path);
  return result.sort();
}

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    async pull(controller) {
      const chunk = chunks.shift();
      if (chunk === undefined) controller.close();
      else {
        await new Promise((resolve) => setTimeout(resolve, 1));
        controller.enqueue(encoder.encode(chunk));
      }
    },
  });
}

/** The behaviour every StorageDriver must show; run by each driver's test file. */
export function runStorageContract(name: string, makeDriver: () => Promise<StorageDriver>): void {
  describe(`storage contract: ${name}`, () => {
    it('stores names of the longest segment, their ACL documents and types the names do not imply', async () => {
      const driver = await makeDriver();
      const longest = 'n'.repeat(MAX_SEGMENT_BYTES);
      const writes: [string, string, string][] = [
        [`/long/${longest}`, 'body', 'text/plain'],
        [`/long/${longest}.acl`, '{"@id": "#a"}', 'application/ld+json'],
        [`/long/${'é'.repeat(MAX_SEGMENT_BYTES / 2)}`, 'accented', 'text/markdown'],
        [`/long/${'c'.repeat(MAX_SEGMENT_BYTES)}/inner`, 'inside', 'text/turtle'],
      ];
      for (const [path, body, contentType] of writes) {
        expect((await driver.put(path, body, { contentType }))?.meta.contentType).toBe(contentType);
        expect((await driver.put(path, body + '!', { contentType: 'application/octet-stream' }))?.created).toBe(false);
        expect((await driver.put(path, body, { contentType }))?.created).toBe(false);
        expect((await driver.head(path))?.contentType).toBe(contentType);
        expect(await text(driver, path)).toBe(body);
      }
      expect((await driver.delete(`/long/${longest}`))?.size).toBe(4);
      expect(await driver.head(`/long/${longest}`)).toBeNull();
    });

    it('writes, reads, overwrites and deletes a resource', async () => {
      const driver = await makeDriver();
      const first = await driver.put('/a/note', 'hello', { contentType: 'text/plain' });
      expect(first?.created).toBe(true);
      expect(first?.meta).toMatchObject({ path: '/a/note', isContainer: false, size: 5, contentType: 'text/plain' });
      expect(await text(driver, '/a/note')).toBe('hello');
      const head = await driver.head('/a/note');
      expect(head?.contentType).toBe('text/plain');
      expect(head?.etag).toBe(first!.meta.etag);

      const second = await driver.put('/a/note', 'hello again', { contentType: 'text/plain' });
      expect(second?.created).toBe(false);
      expect(second?.previousSize).toBe(5);
      expect(second?.meta.etag).not.toBe(first!.meta.etag);
      expect(await text(driver, '/a/note')).toBe('hello again');

      const deleted = await driver.delete('/a/note');
      expect(deleted?.path).toBe('/a/note');
      expect(await driver.head('/a/note')).toBeNull();
      expect(await driver.get('/a/note')).toBeNull();
      expect(await driver.delete('/a/note')).toBeNull();
    });

    it('keeps content types exactly, also for names without an extension', async () => {
      const driver = await makeDriver();
      await driver.put('/t/plain', 'x', { contentType: 'text/plain' });
      await driver.put('/t/doc.json', '{}', { contentType: 'application/ld+json' });
      await driver.put('/t/page.html', '<p>', { contentType: 'text/html; charset=utf-8' });
      await driver.put('/t/data.ttl', '<a> <b> <c>.', { contentType: 'text/turtle' });
      expect((await driver.head('/t/plain'))?.contentType).toBe('text/plain');
      expect((await driver.head('/t/doc.json'))?.contentType).toBe('application/ld+json');
      expect((await driver.head('/t/page.html'))?.contentType).toBe('text/html; charset=utf-8');
      expect((await driver.head('/t/data.ttl'))?.contentType).toBe('text/turtle');
      await driver.put('/t/plain', 'y', { contentType: 'application/octet-stream' });
      expect((await driver.head('/t/plain'))?.contentType).toBe('application/octet-stream');
    });

    it('streams bodies in and serves byte ranges', async () => {
      const driver = await makeDriver();
      await driver.put('/s/file', streamOf(['abc', 'def', 'ghi']), { contentType: 'text/plain' });
      expect(await text(driver, '/s/file')).toBe('abcdefghi');
      const partial = await driver.get('/s/file', { range: { start: 2, end: 4 } });
      expect(await new Response(partial!.body).text()).toBe('cde');
      const tail = await driver.get('/s/file', { range: { start: 6 } });
      expect(await new Response(tail!.body).text()).toBe('ghi');
    });

    it('creates missing ancestors and reports them', async () => {
      const driver = await makeDriver();
      const result = await driver.put('/x/y/z/leaf', '1', { contentType: 'text/plain' });
      expect(result?.createdContainers).toEqual(['/x/', '/x/y/', '/x/y/z/']);
      expect((await driver.head('/x/y/'))?.isContainer).toBe(true);
      const again = await driver.put('/x/y/other', '2', { contentType: 'text/plain' });
      expect(again?.createdContainers).toEqual([]);
    });

    it('lists direct children only, containers with a trailing slash', async () => {
      const driver = await makeDriver();
      await driver.put('/l/one', '1', { contentType: 'text/plain' });
      await driver.put('/l/two', '22', { contentType: 'text/plain' });
      await driver.put('/l/sub/deep', '3', { contentType: 'text/plain' });
      expect(await names(driver, '/l/')).toEqual(['/l/one', '/l/sub/', '/l/two']);
      const sizes: Record<string, ResourceMeta> = {};
      for await (const meta of driver.list('/l/')) sizes[meta.path] = meta;
      expect(sizes['/l/two']!.size).toBe(2);
      expect(sizes['/l/sub/']!.isContainer).toBe(true);
      await expect(async () => names(driver, '/missing/')).rejects.toSatisfy((e) => isStorageError(e, 'NotFound'));
    });

    it('creates containers once and refuses to delete non-empty ones', async () => {
      const driver = await makeDriver();
      const made = await driver.createContainer('/c/d/');
      expect(made?.created).toBe(true);
      expect(made?.createdContainers).toEqual(['/c/']);
      expect(await driver.createContainer('/c/d/')).toBeNull();
      await driver.put('/c/d/item', 'x', { contentType: 'text/plain' });
      await expect(driver.delete('/c/d/')).rejects.toSatisfy((e) => isStorageError(e, 'NotEmpty'));
      await driver.delete('/c/d/item');
      expect((await driver.delete('/c/d/'))?.isContainer).toBe(true);
      expect(await driver.head('/c/d/')).toBeNull();
    });

    it('never lets a resource and a container share a name', async () => {
      const driver = await makeDriver();
      await driver.put('/n/x', 'file', { contentType: 'text/plain' });
      await expect(driver.createContainer('/n/x/')).rejects.toSatisfy((e) => isStorageError(e, 'Conflict'));
      await expect(driver.put('/n/x/inner', 'y', { contentType: 'text/plain' })).rejects.toSatisfy((e) => isStorageError(e, 'Conflict'));
      await driver.createContainer('/n/dir/');
      await expect(driver.put('/n/dir', 'z', { contentType: 'text/plain' })).rejects.toSatisfy((e) => isStorageError(e, 'Conflict'));
      expect(await text(driver, '/n/x')).toBe('file');
    });

    it('applies ifMatch as compare-and-swap and ifNoneMatch as create-only', async () => {
      const driver = await makeDriver();
      expect(await driver.put('/p/r', 'v1', { contentType: 'text/plain', ifMatch: 'nope' })).toBeNull();
      const v1 = await driver.put('/p/r', 'v1', { contentType: 'text/plain', ifNoneMatch: '*' });
      expect(v1?.created).toBe(true);
      expect(await driver.put('/p/r', 'again', { contentType: 'text/plain', ifNoneMatch: '*' })).toBeNull();
      expect(await driver.put('/p/r', 'v2', { contentType: 'text/plain', ifMatch: 'stale' })).toBeNull();
      const v2 = await driver.put('/p/r', 'v2', { contentType: 'text/plain', ifMatch: v1!.meta.etag });
      expect(v2).not.toBeNull();
      expect(await driver.delete('/p/r', { ifMatch: v1!.meta.etag })).toBeNull();
      expect(await text(driver, '/p/r')).toBe('v2');
      expect(await driver.delete('/p/r', { ifMatch: v2!.meta.etag })).not.toBeNull();
    });

    it('has exactly one winner in a create-only race', async () => {
      const driver = await makeDriver();
      const attempts = Array.from({ length: 25 }, (_, i) =>
        driver.put('/race/one', `writer ${i}`, { contentType: 'text/plain', ifNoneMatch: '*' }),
      );
      const results = await Promise.all(attempts);
      const winners = results.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      const stored = await text(driver, '/race/one');
      expect(results.findIndex((r) => r !== null)).toBe(Number(stored!.split(' ')[1]));
    });

    it('never tears or interleaves concurrent writes to one path', async () => {
      const driver = await makeDriver();
      const bodies = Array.from({ length: 20 }, (_, i) => String(i % 10).repeat(2000 + i));
      await Promise.all(bodies.map((body) => driver.put('/w/same', streamOf(body.match(/.{1,500}/g)!), { contentType: 'text/plain' })));
      const stored = await text(driver, '/w/same');
      expect(bodies).toContain(stored);
      const meta = await driver.head('/w/same');
      expect(meta?.size).toBe(stored!.length);
    });

    it('counts usage under a prefix', async () => {
      const driver = await makeDriver();
      await driver.put('/u/a', '12345', { contentType: 'text/plain' });
      await driver.put('/u/b/c', '123', { contentType: 'text/plain' });
      await driver.put('/other', '1234567', { contentType: 'text/plain' });
      expect(await driver.usage('/u/')).toBe(8);
    });

    it('leaves nothing behind when a body stream fails', async () => {
      const driver = await makeDriver();
      await driver.put('/f/keep', 'original', { contentType: 'text/plain' });
      const failing = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode('partial'));
          controller.error(new Error('client went away'));
        },
      });
      await expect(driver.put('/f/keep', failing, { contentType: 'text/plain' })).rejects.toThrow();
      expect(await text(driver, '/f/keep')).toBe('original');
      expect(await names(driver, '/f/')).toEqual(['/f/keep']);
    });
  });
}
