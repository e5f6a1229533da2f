import { describe, expect, it, vi } from 'vitest';
import { eventsFor, NotificationHub, type Subscriber, type TopicEvent } from '../../src/notifications/hub.ts';
import { WAIT_MS } from './support.ts';

function recorder(): Subscriber & { batches: TopicEvent[][] } {
  const batches: TopicEvent[][] = [];
  return { batches, deliver: (events) => void batches.push([...events]) };
}

const hubWith = (stateOf = async () => '"etag"') => new NotificationHub({ stateOf, now: () => 1000 });

describe('eventsFor', () => {
  it('tells the resource what happened to it and its direct parent about membership', () => {
    expect(eventsFor([{ path: '/a/b', kind: 'create' }], 5)).toEqual([
      { topic: '/a/b', activity: 'Create', object: '/a/b', published: 5 },
      { topic: '/a/', activity: 'Add', object: '/a/b', published: 5 },
    ]);
    expect(eventsFor([{ path: '/a/b', kind: 'update' }], 5).map((e) => [e.topic, e.activity])).toEqual([['/a/b', 'Update'], ['/a/', 'Update']]);
    expect(eventsFor([{ path: '/a/b', kind: 'delete' }], 5).map((e) => [e.topic, e.activity])).toEqual([['/a/b', 'Delete'], ['/a/', 'Remove']]);
  });

  it('stops at the direct parent, has no parent for the root, and keeps ACL changes to their own topic', () => {
    expect(eventsFor([{ path: '/a/b/c', kind: 'update' }], 0).map((e) => e.topic)).toEqual(['/a/b/c', '/a/b/']);
    expect(eventsFor([{ path: '/', kind: 'update' }], 0).map((e) => e.topic)).toEqual(['/']);
    expect(eventsFor([{ path: '/a/.acl', kind: 'create' }], 0).map((e) => e.topic)).toEqual(['/a/.acl']);
  });
});

describe('NotificationHub', () => {
  it('delivers after publish returns, grouped per topic, only to subscribers of that topic', async () => {
    const hub = hubWith();
    const container = recorder();
    const other = recorder();
    hub.subscribe('/a/', container);
    hub.subscribe('/z', other);
    hub.publish([{ path: '/a/', kind: 'create' }, { path: '/a/x', kind: 'create' }]);
    expect(container.batches).toEqual([]);
    await vi.waitFor(() => expect(container.batches).toHaveLength(1), { timeout: WAIT_MS });
    expect(container.batches[0]!.map((e) => `${e.activity} ${e.object}`)).toEqual(['Create /a/', 'Add /a/x']);
    expect(other.batches).toEqual([]);
  });

  it('stops delivering after unsubscribe and forgets empty topics', async () => {
    const hub = hubWith();
    const first = recorder();
    const second = recorder();
    hub.subscribe('/r', first);
    hub.subscribe('/r', second);
    hub.unsubscribe('/r', first);
    expect(hub.subscriberCount('/r')).toBe(1);
    hub.publish([{ path: '/r', kind: 'update' }]);
    await vi.waitFor(() => expect(second.batches).toHaveLength(1), { timeout: WAIT_MS });
    expect(first.batches).toEqual([]);
    hub.unsubscribe('/r', second);
    expect(hub.subscriberCount('/r')).toBe(0);
  });

  it('keeps going when a subscriber throws, and looks a state up once per publish', async () => {
    const stateOf = vi.fn(async () => '"v1"');
    const errors: unknown[] = [];
    const hub = new NotificationHub({ stateOf, onError: (error) => errors.push(error) });
    const states: Array<string | undefined> = [];
    const asking: Subscriber = { deliver: async (events, { stateOf: lookup }) => void states.push(await lookup(events[0]!.topic)) };
    hub.subscribe('/r', { deliver: () => { throw new Error('broken socket'); } });
    hub.subscribe('/r', asking);
    hub.subscribe('/r', { ...asking });
    hub.publish([{ path: '/r', kind: 'update' }]);
    await vi.waitFor(() => expect(states).toEqual(['"v1"', '"v1"']), { timeout: WAIT_MS });
    expect(stateOf).toHaveBeenCalledTimes(1);
    expect(errors).toHaveLength(1);
  });

  it('fans out to many subscribers in slices, yielding to the event loop', async () => {
    const hub = hubWith();
    const subscribers = Array.from({ length: 1000 }, recorder);
    // The first delivery schedules other work; the last one sees whether it ran in between.
    let otherWorkRan = false;
    let ranBeforeLastDelivery: boolean | null = null;
    hub.subscribe('/busy', { deliver: () => void setTimeout(() => (otherWorkRan = true), 0) });
    for (const subscriber of subscribers) hub.subscribe('/busy', subscriber);
    hub.subscribe('/busy', { deliver: () => void (ranBeforeLastDelivery = otherWorkRan) });
    hub.publish([{ path: '/busy', kind: 'update' }]);
    await vi.waitFor(() => expect(ranBeforeLastDelivery).not.toBeNull(), { timeout: WAIT_MS });
    expect(subscribers.every((s) => s.batches.length === 1)).toBe(true);
    expect(ranBeforeLastDelivery).toBe(true);
  });

  it('does nothing for an empty change list', () => {
    const hub = hubWith();
    hub.subscribe('/r', recorder());
    expect(() => hub.publish([])).not.toThrow();
  });
});
