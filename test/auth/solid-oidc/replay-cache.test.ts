import { describe, expect, it } from 'vitest';
import { MemoryReplayCache } from '../../../src/auth/solid-oidc/replay-cache.ts';

describe('the in-process replay cache', () => {
  it('accepts a key once until it expires', async () => {
    const cache = new MemoryReplayCache();
    expect(await cache.firstUse('a', 1000, 0)).toBe(true);
    expect(await cache.firstUse('a', 1000, 500)).toBe(false);
    expect(await cache.firstUse('b', 1000, 500)).toBe(true);
  });

  it('drops expired keys', async () => {
    const cache = new MemoryReplayCache();
    await cache.firstUse('a', 1000, 0);
    await cache.firstUse('b', 2000, 0);
    await cache.firstUse('c', 5000, 1500);
    expect(cache.size).toBe(2);
  });

  it('stays within its bound, and then refuses keys as old as the ones it forgot rather than let a replay through', async () => {
    const cache = new MemoryReplayCache(3);
    for (const [key, expiry] of [['a', 100], ['b', 200], ['c', 300], ['d', 400]] as const) expect(await cache.firstUse(key, expiry, 0)).toBe(true);
    expect(cache.size).toBe(3);
    // "a" was forgotten: it and anything expiring no later than it cannot be vouched for.
    expect(await cache.firstUse('a', 100, 0)).toBe(false);
    expect(await cache.firstUse('older', 90, 0)).toBe(false);
    expect(await cache.firstUse('b', 200, 0)).toBe(false);
    expect(await cache.firstUse('newer', 500, 0)).toBe(true);
  });
});
