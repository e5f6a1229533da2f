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

  describe('after a write through svc to a member', () => {
    const noScan = () => Promise.reject(new Error('no scan expected'));
    /** A cache with /c/ listed (members a and c), and the directory as `versionOf` sees it. */
    async function listed(maxAgeMs = 60_000) {
      const cache = new ListingCache(1 << 20, maxAgeMs);
      const disk = { version: version(1n) };
      await cache.members('/c/', disk.version, async () => [member('/c/c', 3), member('/c/a', 1)]);
      return { cache, disk, versionOf: () => disk.version };
    }

    it('keeps the members sorted by path, as a listing shows them', async () => {
      const { cache } = await listed();
      expect(await cache.members('/c/', version(1n), noScan)).toEqual([member('/c/a', 1), member('/c/c', 3)]);
    });

    it('puts the member written into a new array in its place, with the directory version after the write', async () => {
      const { cache, disk, versionOf } = await listed();
      const before = await cache.members('/c/', version(1n), noScan);
      const write = cache.writeStarting('/c/b', versionOf);
      // Still served while the write is under way.
      expect(cache.recent('/c/', 60_000, noScan)).toBe(before);
      disk.version = version(2n);
      cache.writeDone('/c/b', write, { member: member('/c/b', 2), versionOf });
      const after = cache.recent('/c/', 60_000, noScan);
      expect(after).toEqual([member('/c/a', 1), member('/c/b', 2), member('/c/c', 3)]);
      expect(before).toEqual([member('/c/a', 1), member('/c/c', 3)]);
      expect(cache.recentMeta('/c/', 60_000)).toEqual(containerMeta(2n));
      expect(await cache.members('/c/', version(2n), noScan)).toBe(after);
      const removal = cache.writeStarting('/c/a', versionOf);
      disk.version = version(3n);
      cache.writeDone('/c/a', removal, { member: null, versionOf });
      expect(cache.recent('/c/', 60_000, noScan)).toEqual([member('/c/b', 2), member('/c/c', 3)]);
    });

    it('still scans an aged listing again, as it would have without the write', async () => {
      const { cache, disk, versionOf } = await listed(0);
      const write = cache.writeStarting('/c/b', versionOf);
      disk.version = version(2n);
      cache.writeDone('/c/b', write, { member: member('/c/b', 2), versionOf });
      let scanned = 0;
      await cache.members('/c/', version(2n), async () => {
        scanned++;
        return [member('/c/a', 5), member('/c/b', 2), member('/c/c', 3)];
      });
      expect(scanned).toBe(1);
    });

    it('marks the listing stale when the directory changed before the write (outside svc)', async () => {
      const { cache, disk, versionOf } = await listed();
      disk.version = version(5n);
      const write = cache.writeStarting('/c/b', versionOf);
      expect(write).toBeUndefined();
      cache.writeDone('/c/b', write, { member: member('/c/b', 2), versionOf });
      expect(cache.recent('/c/', 60_000, noScan)).toBeUndefined();
    });

    it('marks the listing stale when a scan of it began before the write', async () => {
      const { cache, disk, versionOf } = await listed();
      const slow = scans([[member('/c/a', 1)]]);
      // Changed outside svc: a read waits for a scan, and a write begins meanwhile.
      const reading = cache.members('/c/', version(7n), slow.scan);
      disk.version = version(7n);
      expect(cache.writeStarting('/c/b', versionOf)).toBeUndefined();
      slow.finish(0);
      await reading;
      expect(cache.recent('/c/', 60_000, noScan)).toBeUndefined();
    });

    it('marks the listing stale when a scan of it began during the write', async () => {
      const { cache, disk, versionOf } = await listed();
      const slow = scans([[member('/c/a', 1), member('/c/b', 2), member('/c/c', 3)]]);
      const write = cache.writeStarting('/c/b', versionOf);
      expect(write).toBeDefined();
      // The file is in place, the write not done yet: a read sees the directory changed and scans.
      disk.version = version(8n);
      const rescan = cache.members('/c/', version(8n), slow.scan);
      cache.writeDone('/c/b', write, { member: member('/c/b', 2), versionOf });
      expect(cache.recent('/c/', 60_000, noScan)).toBeUndefined();
      slow.finish(0);
      await rescan;
    });

    it('marks the listing stale for writes that overlap, after the first one done', async () => {
      const { cache, disk, versionOf } = await listed();
      const first = cache.writeStarting('/c/b', versionOf);
      const second = cache.writeStarting('/c/d', versionOf);
      disk.version = version(2n);
      cache.writeDone('/c/d', second, { member: member('/c/d', 4), versionOf });
      cache.writeDone('/c/b', first, { member: member('/c/b', 2), versionOf });
      expect(cache.recent('/c/', 60_000, noScan)).toBeUndefined();
    });

    it('keeps the listing stale when another change (a container made in it) marked it so during the write', async () => {
      const { cache, disk, versionOf } = await listed();
      const write = cache.writeStarting('/c/b', versionOf);
      cache.invalidate('/c/made/');
      disk.version = version(2n);
      cache.writeDone('/c/b', write, { member: member('/c/b', 2), versionOf });
      expect(cache.recent('/c/', 60_000, noScan)).toBeUndefined();
    });

    it('stays within its bound in bytes: a listing grown past it by a write is no longer kept', async () => {
      // Room for the container and two members (see MEMBER_BYTES), not three.
      const cache = new ListingCache(600, 60_000);
      await cache.members('/c/', version(1n), async () => [member('/c/a', 1), member('/c/c', 3)]);
      expect(cache.recent('/c/', 60_000, noScan)).toHaveLength(2);
      const versionOf = () => version(2n);
      const write = cache.writeStarting('/c/b', () => version(1n));
      cache.writeDone('/c/b', write, { member: member('/c/b', 2), versionOf });
      expect(cache.recent('/c/', 60_000, noScan)).toBeUndefined();
    });

    it('marks the listing stale when the write did not say what it left, and its ancestors always', async () => {
      const { cache, versionOf } = await listed();
      await cache.members('/', version(1n), async () => [member('/c/', 0)]);
      const write = cache.writeStarting('/c/b', versionOf);
      expect(cache.recent('/', 60_000, noScan)).toBeUndefined();
      cache.writeDone('/c/b', write);
      expect(cache.recent('/c/', 60_000, noScan)).toBeUndefined();
    });
  });
});
