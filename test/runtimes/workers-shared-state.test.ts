/**
 * The contract of SharedState (as test/runtimes/node-redis-shared-state.test.ts states it for Redis) for the
 * Workers client and its Durable Object, in workerd: two Workers (separate isolates) run the client of
 * runtimes/workers over one object, through the fixture in test/runtimes/fixtures/shared-state-worker.ts.
 */
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildWorkerBundle, type WorkerBundle, WORKER_COMPATIBILITY } from '../support/worker-bundle.ts';

let bundle: WorkerBundle;
let mf: Miniflare;
type Instance = (operation: Record<string, unknown>) => Promise<{ result?: unknown; error?: string; message?: string }>;
let first: Instance;
let second: Instance;

beforeAll(async () => {
  bundle = await buildWorkerBundle('test/runtimes/fixtures/shared-state-worker.ts');
  const common = { modules: true, scriptPath: bundle.script, modulesRoot: bundle.outdir, ...WORKER_COMPATIBILITY };
  mf = new Miniflare({
    workers: [
      { name: 'first', ...common, durableObjects: { SHARED: { className: 'SharedStateObject', useSQLite: true } } },
      { name: 'second', ...common, durableObjects: { SHARED: { className: 'SharedStateObject', scriptName: 'first', useSQLite: true } } },
    ],
  });
  const instance = async (name: string): Promise<Instance> => {
    const worker = await mf.getWorker(name);
    return async (operation) => (await (await worker.fetch('http://shared.test/', { method: 'POST', body: JSON.stringify(operation) })).json()) as never;
  };
  first = await instance('first');
  second = await instance('second');
}, 120_000);

afterAll(async () => {
  await mf?.dispose();
  await bundle?.remove();
});

const result = async (answer: ReturnType<Instance>) => {
  const { result, error, message } = await answer;
  if (error) throw new Error(`${error}: ${message}`);
  return result;
};

describe('the Workers shared state (a Durable Object)', () => {
  it('counts in windows that start at the first hit and are forgotten at zero', async () => {
    expect(await result(first({ op: 'add', key: 'window', amount: 1, options: { ttlMs: 60_000 } }))).toMatchObject({ value: 1 });
    const again = (await result(second({ op: 'add', key: 'window', amount: 1, options: { ttlMs: 60_000 } }))) as { value: number; ttlMs: number };
    expect(again.value).toBe(2);
    expect(again.ttlMs).toBeGreaterThan(0);
    expect(again.ttlMs).toBeLessThanOrEqual(60_000);
    await result(first({ op: 'add', key: 'window', amount: -2, options: { ttlMs: 60_000 } }));
    expect(await result(first({ op: 'get', key: 'window' }))).toBeNull();
  });

  it('forgets counters and keys when their time is up', async () => {
    await result(first({ op: 'add', key: 'brief', amount: 1, options: { ttlMs: 50 } }));
    await result(first({ op: 'set', key: 'brief-key', value: 'v', ttlMs: 50 }));
    await vi.waitFor(async () => {
      expect(await result(second({ op: 'get', key: 'brief' }))).toBeNull();
      expect(await result(second({ op: 'get', key: 'brief-key' }))).toBeNull();
    });
    expect(await result(second({ op: 'add', key: 'brief', amount: 1, options: { ttlMs: 60_000 } }))).toMatchObject({ value: 1 });
    expect(await result(second({ op: 'setIfAbsent', key: 'brief-key', value: 'w' }))).toBe(true);
  });

  it('refuses an increase past max and leaves the counter as it was', async () => {
    expect(await result(first({ op: 'add', key: 'bounded', amount: 8, options: { max: 10 } }))).toEqual({ value: 8, ttlMs: null });
    expect(await result(second({ op: 'add', key: 'bounded', amount: 3, options: { max: 10 } }))).toBeNull();
    expect(await result(second({ op: 'add', key: 'bounded', amount: 2, options: { max: 10 } }))).toEqual({ value: 10, ttlMs: null });
    expect(await result(first({ op: 'add', key: 'bounded', amount: -10, options: { max: 10 } }))).toEqual({ value: 0, ttlMs: null });
  });

  it('takes concurrent bounded adds from both isolates exactly up to max', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => result((i % 2 ? first : second)({ op: 'add', key: 'race', amount: 1, options: { max: 25 } }))));
    expect(answers.filter((answer) => answer !== null)).toHaveLength(25);
    expect(await result(first({ op: 'get', key: 'race' }))).toBe('25');
  });

  it('stores a key once', async () => {
    expect(await result(first({ op: 'setIfAbsent', key: 'once', value: 'a', ttlMs: 60_000 }))).toBe(true);
    expect(await result(second({ op: 'setIfAbsent', key: 'once', value: 'b', ttlMs: 60_000 }))).toBe(false);
    expect(await result(second({ op: 'get', key: 'once' }))).toBe('a');
  });

  it('lets one holder at a time have a lock', async () => {
    const order: string[] = [];
    const firstLock = await result(first({ op: 'lock', key: 'resource', ttlMs: 10_000 }));
    const waiting = result(second({ op: 'lock', key: 'resource', ttlMs: 10_000 })).then((lock) => {
      order.push('second got it');
      return lock;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    order.push('first releases');
    expect(await result(first({ op: 'release', lock: firstLock }))).toBe(true);
    expect(await result(second({ op: 'release', lock: await waiting }))).toBe(true);
    expect(order).toEqual(['first releases', 'second got it']);
  });

  it('frees a lock whose holder never releases it when its time is up', async () => {
    await result(first({ op: 'lock', key: 'abandoned', ttlMs: 100 }));
    const lock = await result(second({ op: 'lock', key: 'abandoned', ttlMs: 10_000 }));
    expect(typeof lock).toBe('string');
    await result(second({ op: 'release', lock }));
  });

  it('cannot hear in an isolate: subscribe is refused, publish reaches the object', async () => {
    expect(await result(first({ op: 'hearsOthers' }))).toBe(false);
    expect(await first({ op: 'subscribe', channel: 'events' })).toMatchObject({ error: 'Error', message: expect.stringMatching(/cannot hear other isolates/) });
    expect(await result(second({ op: 'publish', channel: 'events', message: 'hello' }))).toBeNull();
  });
});
