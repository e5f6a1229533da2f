import { describe, expect, it, vi } from 'vitest';
import { fanOut } from '../../src/cluster/fan-out.ts';
import type { SharedState } from '../../src/cluster/shared-state.ts';
import type { NostrEvent } from '../../src/nostr/event.ts';
import { Relay } from '../../src/nostr/relay.ts';
import { Author } from '../nostr/support.ts';
import { useTestRedis } from '../support/redis.ts';

const redis = useTestRedis();

/** A relay as the nostr feature builds it with --redis-url, with its own connection to the shared Redis. */
async function relayInstance() {
  const state = await redis.connect();
  const peers = fanOut<NostrEvent>(state, 'nostr', (event) => void relay.publish(event, true), () => undefined);
  const relay: Relay = new Relay({ maxEvents: 100, now: Date.now, log: () => undefined, announce: (event) => peers.send(event) });
  await peers.init();
  const delivered: NostrEvent[] = [];
  relay.listen({ deliver: (event) => delivered.push(event) });
  return { relay, delivered };
}

describe('fan-out between instances', () => {
  it('gives every relay the events accepted by any, once each, to keep and to deliver', async () => {
    const [first, second, third] = [await relayInstance(), await relayInstance(), await relayInstance()];
    const note = new Author().sign({ created_at: Math.floor(Date.now() / 1000) });
    expect(await first.relay.publish(note)).toEqual({ accepted: true, message: '' });
    await vi.waitFor(() => {
      expect(second.delivered).toEqual([note]);
      expect(third.delivered).toEqual([note]);
    });
    expect(first.delivered).toEqual([note]);
    expect(second.relay.store.get(note.id)).toEqual(note);
    // A copy sent to another relay is a duplicate there and goes no further.
    expect(await second.relay.publish(note)).toEqual({ accepted: true, message: 'duplicate: already have this event' });
  });

  it('only sends from an instance that cannot hear (a Workers isolate), rather than waiting for messages that never come', async () => {
    const published: string[] = [];
    const isolate: SharedState = {
      hearsOthers: false,
      add: async () => null,
      setIfAbsent: async () => false,
      get: async () => null,
      set: async () => undefined,
      lock: async () => async () => undefined,
      publish: async (_channel, message) => void published.push(message),
      subscribe: async () => {
        throw new Error('cannot hear');
      },
      close: async () => undefined,
    };
    const changes = fanOut<string>(isolate, 'changes', () => undefined, () => undefined);
    await expect(changes.init()).resolves.toBeUndefined();
    changes.send('/alice/x');
    await vi.waitFor(() => expect(published.map((text) => JSON.parse(text).message)).toEqual(['/alice/x']));
  });
});
