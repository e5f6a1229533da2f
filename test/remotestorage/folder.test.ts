import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeFolder } from '../../src/remotestorage/folder.ts';
import type { StorageDriver } from '../../src/storage/types.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

/** The fs driver (whose listings leave content types out), counting the heads made through it. */
async function countingFsDriver(): Promise<{ storage: StorageDriver; heads: () => number }> {
  const root = await mkdtemp(join(tmpdir(), 'svc-rs-folder-'));
  roots.push(root);
  const driver = await FsDriver.open(root);
  let heads = 0;
  const storage = new Proxy(driver, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (property === 'head') return (path: string) => ((heads += 1), target.head(path));
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { storage, heads: () => heads };
}

describe('remoteStorage folder descriptions', () => {
  it('read the types of the folder’s own documents only, and give each sub-folder the ETag of its own description', async () => {
    const { storage, heads } = await countingFsDriver();
    const folder = '/alice/remotestorage/notes/';
    const put = (path: string, type: string) => storage.put(folder + path, 'x', { contentType: type });
    await put('top', 'text/markdown');
    await put('sub/a', 'application/ld+json');
    await put('sub/deep/b', 'text/plain');
    await put('sub/deep/c', 'application/json');
    await storage.createContainer(`${folder}empty/`);

    const before = heads();
    const described = await describeFolder(storage, folder);
    expect(heads() - before, 'heads for the folder asked for').toBe(1);
    expect(Object.keys(described.items).sort()).toEqual(['sub/', 'top']);
    expect(described.items.top).toMatchObject({ 'Content-Type': 'text/markdown', 'Content-Length': 1 });

    const sub = await describeFolder(storage, `${folder}sub/`);
    expect(described.items['sub/']).toEqual({ ETag: sub.etag });
    expect(sub.items.a).toMatchObject({ 'Content-Type': 'application/ld+json' });
    expect(sub.items['deep/']).toEqual({ ETag: (await describeFolder(storage, `${folder}sub/deep/`)).etag });

    await put('sub/deep/b', 'text/html');
    expect((await describeFolder(storage, folder)).etag, 'a write deep down changes the folder above').not.toBe(described.etag);
  });
});
