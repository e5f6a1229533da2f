import { describe, expect, it } from 'vitest';
import { isPodRoot, learnPodRootOf, podRecordPath } from '../../src/pods/registry.ts';
import type { StorageDriver } from '../../src/storage/types.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

describe('looking pods up by their records (instances that cannot hear of new pods)', () => {
  it('remembers the pod that holds a path once its record exists, and nothing else', async () => {
    const storage = new MemoryDriver();
    await learnPodRootOf(storage, '/carol/notes/a.txt');
    expect(isPodRoot(storage, '/carol/')).toBe(false);
    await storage.put(podRecordPath('carol'), JSON.stringify({ name: 'carol', webId: 'http://pod.test/carol/#me', created: '2026-11-23' }), { contentType: 'application/json' });
    await learnPodRootOf(storage, '/carol/notes/a.txt');
    expect(isPodRoot(storage, '/carol/')).toBe(true);
    await learnPodRootOf(storage, '/notes/a.txt');
    expect(isPodRoot(storage, '/notes/')).toBe(false);
  });

  it('does not look for records of names no pod can have, of the server’s own routes, nor of top-level resources', async () => {
    const heads: string[] = [];
    const storage = new MemoryDriver();
    const watched = new Proxy(storage, {
      get: (target, name) => (name === 'head' ? (path: string) => (heads.push(path), target.head(path)) : Reflect.get(target, name, target)),
    }) as StorageDriver;
    await learnPodRootOf(watched, '/Not%20a%20pod/x');
    await learnPodRootOf(watched, '/idp/login');
    await learnPodRootOf(watched, '/file.txt');
    await learnPodRootOf(watched, '/');
    expect(heads).toEqual([]);
  });
});
