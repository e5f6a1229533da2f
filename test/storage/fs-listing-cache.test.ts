import { describe, expect, it } from 'vitest';
import { ListingCache } from '../../storage-drivers/fs-listing-cache.ts';
import type { ResourceMeta } from '../../src/storage/types.ts';

const member = (path: string, size: number): ResourceMeta => ({ path, isContainer: false, size, etag: `f-${size}`, modified: 0 });
const containerMeta = (mtimeNs: bigint): ResourceMeta => ({ path: '/c/', isContainer: true, size: 0, etag: `d1-${mtimeNs}`, modified: 0 });
const version = (mtimeNs: bigint) => ({ ino: 1n, mtimeNs, meta: containerMeta(mtimeNs) });

/** A directory scan the test finishes by hand, counting how often it was started. */
function scans(results: ResourceMeta[][]) {
  const started: ((members: ResourceMeta[]) => void)[] = [];
  return {
    get count() {
      return started.length;
    },
    scan: () => new Promise<ResourceMeta[]>((resolve) => started.push(resolve)),
    finish: (index: number) => started[index]!(results[index]!),
  };
}

describe('the fs listing cache', () => {
  it('answers an aged listing of an unchanged directory at once, and the next read from the scan that ran meanwhile', async () => {
    const cache = new ListingCache(1 << 20, 0);
    const disk = scans([[member('/c/a', 1)], [member('/c/a', 5)]]);
    const first = cache.members('/c/', version(1n), disk.scan);
    disk.finish(0);
    expect(await first).toEqual([member('/c/a', 1)]);
    // Aged (maxAgeMs 0), directory unchanged: no wait for the scan of the member edited in place.
    expect(await cache.members('/c/', version(1n), disk.scan)).toEqual([member('/c/a', 1)]);
    expect(disk.count).toBe(2);
    disk.finish(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await cache.members('/c/', version(1n), () => Promise.reject(new Error('no scan expected')))).toEqual([member('/c/a', 5)]);
  });

  it('waits for a scan when the directory changed, and starts only one for requests that come together', async () => {
    const cache = new ListingCache(1 << 20, 60_000);
    const disk = scans([[member('/c/a', 1)], [member('/c/a', 1), member('/c/b', 2)]]);
    const first = cache.members('/c/', version(1n), disk.scan);
    disk.finish(0);
    await first;
    expect(await cache.members('/c/', version(1n), disk.scan)).toEqual([member('/c/a', 1)]);
    const changed = [cache.members('/c/', version(2n), disk.scan), cache.members('/c/', version(2n), disk.scan)];
    expect(disk.count).toBe(2);
    disk.finish(1);
    for (const listing of await Promise.all(changed)) expect(listing).toEqual([member('/c/a', 1), member('/c/b', 2)]);
  });

  it("gives the container's own metadata as last seen while that is recent, and none once a write changed the container", async () => {
    const cache = new ListingCache(1 << 20, 60_000);
    expect(cache.recentMeta('/c/', 60_000)).toBeUndefined();
    await cache.members('/c/', version(1n), async () => [member('/c/a', 1)]);
    expect(cache.recentMeta('/c/', 60_000)).toEqual(containerMeta(1n));
    expect(cache.recentMeta('/c/', 0)).toBeUndefined();
    cache.invalidate('/c/b');
    expect(cache.recentMeta('/c/', 60_000)).toBeUndefined();
  });

  it('serves nothing a write changed, and gives its members to the next scan to reuse', async () => {
    const cache = new ListingCache(1 << 20, 60_000);
    const first = [member('/c/a', 1)];
    await cache.members('/c/', version(1n), async () => first);
    cache.invalidate('/c/b');
    expect(cache.recent('/c/', 60_000, () => Promise.reject(new Error('no scan expected')))).toBeUndefined();
    const given: (readonly ResourceMeta[] | undefined)[] = [];
    const second = [member('/c/a', 1), member('/c/b', 2)];
    // The same directory version as before: still scanned, since a write went through svc.
    expect(
      await cache.members('/c/', version(1n), async (previous) => {
        given.push(previous);
        return second;
      }),
    ).toBe(second);
    expect(given).toEqual([first]);
    expect(given[0]).toBe(first);
  });
});
