import { Temporal } from '@js-temporal/polyfill';
import { describe, expect, it, vi } from 'vitest';
import { PASS_BUDGET_MS, StorageMessageQueue } from '../../src/activitypub/message-queue.ts';
import { QUEUE_CONTAINER } from '../../src/activitypub/paths.ts';
import { recordPaths } from '../../src/activitypub/records.ts';
import type { SharedState } from '../../src/cluster/shared-state.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

/** Listens until `count` messages arrived, then stops the listener. */
async function receive(queue: StorageMessageQueue, count: number, handle: (message: unknown) => void = () => {}): Promise<unknown[]> {
  const received: unknown[] = [];
  const stop = new AbortController();
  await queue.listen(
    (message) => {
      handle(message);
      received.push(message);
      if (received.length === count) stop.abort();
    },
    { signal: stop.signal },
  );
  return received;
}

describe('StorageMessageQueue', () => {
  it('hands a message queued before a restart to the next run, then forgets it', async () => {
    const storage = new MemoryDriver();
    await new StorageMessageQueue(storage, Date.now, () => {}).enqueue({ inbox: 'https://a.example/inbox', n: 1 });
    const restarted = new StorageMessageQueue(storage, Date.now, () => {});
    expect(await receive(restarted, 1)).toEqual([{ inbox: 'https://a.example/inbox', n: 1 }]);
    expect(await recordPaths(storage, QUEUE_CONTAINER)).toEqual([]);
  });

  it('keeps a delayed message until it is due, in due order', async () => {
    let now = 1_000_000;
    const storage = new MemoryDriver();
    const queue = new StorageMessageQueue(storage, () => now, () => {});
    await queue.enqueue('later', { delay: Temporal.Duration.from({ hours: 1 }) });
    await queue.enqueue('now');
    const first = await receive(queue, 1);
    expect(first).toEqual(['now']);
    expect(await recordPaths(storage, QUEUE_CONTAINER)).toHaveLength(1);
    now += 3600_000;
    expect(await receive(queue, 1)).toEqual(['later']);
  });

  it('wakes a waiting listener when a message is queued', async () => {
    const queue = new StorageMessageQueue(new MemoryDriver(), Date.now, () => {});
    const received = receive(queue, 1);
    await queue.enqueue('wake up');
    expect(await received).toEqual(['wake up']);
  });

  it('drops (and logs) a message whose handler throws, and goes on with the next', async () => {
    const logs: string[] = [];
    const queue = new StorageMessageQueue(new MemoryDriver(), Date.now, (line) => logs.push(line));
    await queue.enqueue('bad');
    await queue.enqueue('good');
    const handled: unknown[] = [];
    await receive(queue, 1, (message) => {
      handled.push(message);
      if (message === 'bad') throw new Error('cannot');
    }).catch(() => {});
    expect(handled).toEqual(['bad', 'good']);
    expect(logs.join('\n')).toContain('cannot');
  });

  it('keeps listening when the storage fails for a while', async () => {
    const storage = new MemoryDriver();
    const logs: string[] = [];
    const queue = new StorageMessageQueue(storage, Date.now, (line) => logs.push(line));
    const list = storage.list.bind(storage);
    let failures = 1;
    storage.list = (container: string) => {
      if (failures-- > 0) throw new Error('disk on fire');
      return list(container);
    };
    const received = receive(queue, 1);
    await queue.enqueue('after the failure');
    expect(await received).toEqual(['after the failure']);
    expect(logs.join('\n')).toContain('disk on fire');
  });

  it('deletes a handled message whose deletion failed on the next pass, without handling it again', async () => {
    const storage = new MemoryDriver();
    const queue = new StorageMessageQueue(storage, Date.now, () => {});
    await queue.enqueue('once');
    const remove = storage.delete.bind(storage);
    let failures = 1;
    storage.delete = (path, options) => {
      if (failures-- > 0) return Promise.reject(new Error('disk on fire'));
      return remove(path, options);
    };
    const handled: unknown[] = [];
    await expect(queue.handleDue((message) => void handled.push(message))).rejects.toThrow('disk on fire');
    await queue.handleDue((message) => void handled.push(message));
    expect(handled).toEqual(['once']);
    expect(await recordPaths(storage, QUEUE_CONTAINER)).toEqual([]);
  });

  it('hands out a message queued while it was busy with others without waiting for the next poll', async () => {
    // With the clock stopped, the 5-second poll never comes: only the wake-up can hand out the second message.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const queue = new StorageMessageQueue(new MemoryDriver(), () => 1_000_000, () => {});
      await queue.enqueue('first');
      const received: unknown[] = [];
      const stop = new AbortController();
      await queue.listen(
        async (message) => {
          received.push(message);
          if (message === 'first') await queue.enqueue('queued meanwhile');
          else stop.abort();
        },
        { signal: stop.signal },
      );
      expect(received).toEqual(['first', 'queued meanwhile']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('holds back the later messages of a key whose first one waits for a retry, and only those', async () => {
    let now = 1_000_000;
    const queue = new StorageMessageQueue(new MemoryDriver(), () => now, () => {});
    await queue.enqueue('a1', { orderingKey: 'a' });
    await queue.enqueue('b1', { orderingKey: 'b' });
    await queue.enqueue('a2', { orderingKey: 'a' });
    await queue.enqueue('free');
    const handled: unknown[] = [];
    let failing = true;
    const handler = (message: unknown) => {
      handled.push(message);
      if (message === 'a1' && failing) return { retryAfterMs: 1000, message: 'a1' };
    };
    expect(await queue.handleDue(handler)).toBe(1000);
    expect(handled).toEqual(['a1', 'b1', 'free']);
    await queue.handleDue(handler);
    expect(handled).toEqual(['a1', 'b1', 'free']);
    failing = false;
    now += 1000;
    await queue.handleDue(handler);
    expect(handled).toEqual(['a1', 'b1', 'free', 'a1', 'a2']);
  });
});

/** The Workers isolate's view of the shared state: it cannot hear, and each publish is a call to the Durable Object. */
function isolateSharedState(published: string[]): SharedState {
  return {
    hearsOthers: false,
    add: async () => null,
    setIfAbsent: async () => true,
    get: async () => null,
    set: async () => undefined,
    lock: async () => async () => undefined,
    publish: async (_channel, message) => void published.push(message),
    subscribe: async () => {
      throw new Error('an isolate cannot hear');
    },
    close: async () => undefined,
  };
}

describe('StorageMessageQueue.handleDue: one pass has a time budget', () => {
  it('stops after PASS_BUDGET_MS of stalled deliveries, asks to be called again at once, and the next pass goes on with the rest', async () => {
    let now = 1_000_000;
    const queue = new StorageMessageQueue(new MemoryDriver(), () => now, () => {});
    await queue.enqueueEach(['a', 'b', 'c', 'd'].map((message) => ({ message })));
    const delivered: string[] = [];
    const stalled = (message: string) => {
      delivered.push(message);
      now += PASS_BUDGET_MS / 2;
    };
    expect(await queue.handleDue(stalled)).toBe(0);
    expect(delivered).toEqual(['a', 'b']);
    expect(await queue.handleDue(stalled)).toBeNull();
    expect(delivered).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('StorageMessageQueue where the runtime works the queue (Workers: telling it is a call to the Durable Object)', () => {
  it('tells the runtime once for a batch, with the soonest delay, and wakes no other instance', async () => {
    const scheduled: number[] = [];
    const published: string[] = [];
    const storage = new MemoryDriver();
    const queue = new StorageMessageQueue(storage, Date.now, () => {}, { shared: isolateSharedState(published), schedule: (ms) => scheduled.push(ms) });
    await queue.enqueueMany(['a', 'b', 'c'], { delay: Temporal.Duration.from({ minutes: 1 }) });
    await queue.enqueueEach([
      { message: 'later', options: { delay: Temporal.Duration.from({ hours: 1 }) } },
      { message: 'now', options: { orderingKey: 'https://a.example/inbox' } },
    ]);
    expect(scheduled).toEqual([60_000, 0]);
    expect(published).toEqual([]);
    expect(await recordPaths(storage, QUEUE_CONTAINER)).toHaveLength(5);
  });

  it('tells the runtime of the messages queued before a write that failed', async () => {
    const scheduled: number[] = [];
    const storage = new MemoryDriver();
    const queue = new StorageMessageQueue(storage, Date.now, () => {}, { schedule: (ms) => scheduled.push(ms) });
    const unstorable = {
      toJSON() {
        throw new Error('cannot be stored');
      },
    };
    await expect(queue.enqueueMany(['first', unstorable, 'never'])).rejects.toThrow('cannot be stored');
    expect(scheduled).toEqual([0]);
    expect(await recordPaths(storage, QUEUE_CONTAINER)).toHaveLength(1);
  });
});
