import { beforeAll, describe, expect, it } from 'vitest';
import { SharedStateUnavailable, type SharedState } from '../../src/cluster/shared-state.ts';
import { useTestRedis } from '../support/redis.ts';

const redis = useTestRedis();
let first: SharedState;
let second: SharedState;
const lines: string[] = [];

beforeAll(async () => {
  first = await redis.connect((line) => lines.push(line));
  second = await redis.connect((line) => lines.push(line));
});

describe('the Redis shared state', () => {
  it('counts in windows that start at the first hit and are forgotten at zero', async () => {
    expect(await first.add('window', 1, { ttlMs: 60_000 })).toMatchObject({ value: 1 });
    const again = await second.add('window', 1, { ttlMs: 60_000 });
    expect(again!.value).toBe(2);
    expect(again!.ttlMs).toBeGreaterThan(0);
    expect(again!.ttlMs).toBeLessThanOrEqual(60_000);
    await first.add('window', -2, { ttlMs: 60_000 });
    expect(await first.get('window')).toBeNull();
  });

  it('refuses an increase past max and leaves the counter as it was', async () => {
    expect(await first.add('bounded', 8, { max: 10 })).toEqual({ value: 8, ttlMs: null });
    expect(await second.add('bounded', 3, { max: 10 })).toBeNull();
    expect(await second.add('bounded', 2, { max: 10 })).toEqual({ value: 10, ttlMs: null });
    expect(await first.add('bounded', -10, { max: 10 })).toEqual({ value: 0, ttlMs: null });
  });

  it('stores a key once', async () => {
    expect(await first.setIfAbsent('once', 'a', 60_000)).toBe(true);
    expect(await second.setIfAbsent('once', 'b', 60_000)).toBe(false);
    expect(await second.get('once')).toBe('a');
  });

  it('lets one holder at a time have a lock', async () => {
    const order: string[] = [];
    const releaseFirst = await first.lock('resource', 10_000);
    const waiting = second.lock('resource', 10_000).then((release) => {
      order.push('second got it');
      return release;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    order.push('first releases');
    await releaseFirst();
    await (await waiting)();
    expect(order).toEqual(['first releases', 'second got it']);
  });

  it('delivers a message published by one instance to the listeners of every instance', async () => {
    const heard: string[] = [];
    const both = new Promise<void>((resolve) => {
      const listener = (message: string) => {
        heard.push(message);
        if (heard.length === 2) resolve();
      };
      void first.subscribe('events', listener);
      void second.subscribe('events', listener);
    });
    // Subscriptions are acknowledged before publish is sent on the other connection only after this round trip.
    await first.get('sync');
    await second.get('sync');
    await first.publish('events', 'hello');
    await both;
    expect(heard).toEqual(['hello', 'hello']);
  });

  it('fails with SharedStateUnavailable while Redis is down, and works again once it is back', async () => {
    await redis.stop();
    await expect(first.add('outage', 1, { ttlMs: 1000 })).rejects.toBeInstanceOf(SharedStateUnavailable);
    await expect(first.lock('outage', 1000)).rejects.toBeInstanceOf(SharedStateUnavailable);
    await redis.start();
    let value: number | undefined;
    while (value === undefined) {
      value = await first.add('outage', 1).then(
        (answer) => answer!.value,
        () => new Promise<undefined>((resolve) => setTimeout(resolve, 100)),
      );
    }
    expect(value).toBe(1);
    expect(lines.some((line) => line.includes('connected again'))).toBe(true);
  });
});
