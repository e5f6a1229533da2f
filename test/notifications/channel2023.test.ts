import { describe, expect, it } from 'vitest';
import { ChannelRegistry, MAX_ANONYMOUS_CHANNELS, MAX_CHANNELS_PER_AGENT } from '../../src/notifications/channel2023.ts';

const ALICE = 'http://pod.test/alice/#me';
const BOB = 'http://pod.test/bob/#me';

describe('ChannelRegistry shares', () => {
  it('lets no single agent hold more than its share, and gives the share back when channels end', () => {
    let now = 1_000;
    const registry = new ChannelRegistry(() => now);
    const create = (agent: string | null, endAt?: number) => registry.create({ webId: agent, origin: null }, 'http://pod.test', '/r', 'http://pod.test/r', endAt);
    for (let i = 0; i < MAX_CHANNELS_PER_AGENT; i++) expect(typeof create(ALICE, i === 0 ? 2_000 : undefined)).toBe('object');
    expect(create(ALICE)).toBe('agent-full');
    expect(typeof create(BOB)).toBe('object');
    // Alice's first channel ends: it is swept on the next creation and her share has room again.
    now = 3_000;
    expect(typeof create(ALICE)).toBe('object');
    expect(create(ALICE)).toBe('agent-full');
  });

  it('pools anonymous callers under their own, larger share', () => {
    const registry = new ChannelRegistry(() => 1_000);
    for (let i = 0; i < MAX_ANONYMOUS_CHANNELS; i++) registry.create({ webId: null, origin: null }, 'http://pod.test', '/r', 'http://pod.test/r');
    expect(registry.create({ webId: null, origin: null }, 'http://pod.test', '/r', 'http://pod.test/r')).toBe('agent-full');
    expect(typeof registry.create({ webId: ALICE, origin: null }, 'http://pod.test', '/r', 'http://pod.test/r')).toBe('object');
    expect(registry.size).toBe(MAX_ANONYMOUS_CHANNELS + 1);
  });
});
