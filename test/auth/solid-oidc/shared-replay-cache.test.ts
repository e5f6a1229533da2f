import { beforeAll, describe, expect, it } from 'vitest';
import type { SharedState } from '../../../src/cluster/shared-state.ts';
import { SharedReplayCache } from '../../../src/auth/solid-oidc/shared-replay-cache.ts';
import { useTestRedis } from '../../support/redis.ts';

const redis = useTestRedis();
let first: SharedState;
let second: SharedState;

beforeAll(async () => {
  first = await redis.connect();
  second = await redis.connect();
});

describe('the shared replay cache', () => {
  it('accepts a proof once across instances', async () => {
    const now = Date.now();
    expect(await new SharedReplayCache(first, 'dpop').firstUse('jti-1', now + 60_000, now)).toBe(true);
    expect(await new SharedReplayCache(second, 'dpop').firstUse('jti-1', now + 60_000, now)).toBe(false);
  });

  it('keeps caches of different namespaces apart', async () => {
    const now = Date.now();
    expect(await new SharedReplayCache(first, 'dpop').firstUse('jti-2', now + 60_000, now)).toBe(true);
    expect(await new SharedReplayCache(second, 'idp-dpop').firstUse('jti-2', now + 60_000, now)).toBe(true);
  });

  it('forgets a proof once it could no longer pass the iat check', async () => {
    const now = Date.now();
    const cache = new SharedReplayCache(first, 'dpop');
    expect(await cache.firstUse('jti-3', now + 20, now)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await new SharedReplayCache(second, 'dpop').firstUse('jti-3', Date.now() + 20, Date.now())).toBe(true);
  });
});
