import { describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { resolveConfig } from '../../src/config/resolve.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { useTestRedis } from '../support/redis.ts';

const redis = useTestRedis();

/** An instance of the server with its own connection to the shared Redis; every request comes from one address. */
async function instance(flags: Record<string, unknown>): Promise<App> {
  const sharedState = await redis.connect();
  const config = resolveConfig({ flags: { quiet: true, public: true, rateLimit: true, ...flags } });
  return createApp(config, { runtime: 'test', storage: new MemoryDriver(), log: () => undefined, clientAddress: () => '192.0.2.7', sharedState });
}

describe('rate limits with --redis-url', () => {
  it('count a client’s requests across instances and refuse the first past the limit on any of them', async () => {
    const instances = [await instance({ rateLimitRequests: 5 }), await instance({ rateLimitRequests: 5 })];
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await instances[i % 2]!.fetch(new Request('http://pod.test/'))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const refused = await instances[0]!.fetch(new Request('http://pod.test/'));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('answer 503 with Retry-After, not 500, while Redis is away, and count again once it is back', async () => {
    const app = await instance({ rateLimitRequests: 100 });
    await redis.stop();
    const refused = await app.fetch(new Request('http://pod.test/'));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.headers.get('retry-after')).toBe('2');
    await redis.start();
    let status = 503;
    while (status === 503) {
      status = (await app.fetch(new Request('http://pod.test/'))).status;
      if (status === 503) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  });
});
